import type { RateLimitRule } from "../config.js";

/**
 * Fixed-window request counters kept in memory (Zulip's defaults: 200/min per user, 100/min per
 * IP unauthenticated, 5 failed logins per 30 min per username). One process owns its counters;
 * with several processes each enforces the limit on the requests it serves.
 */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** UNIX seconds at which the window resets. */
  resetAt: number;
  /** Seconds until the next request is allowed; 0 when allowed. */
  retryAfter: number;
}

interface Window {
  startedAt: number;
  count: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  private sweepAt = 0;

  constructor(
    private readonly enabled: boolean,
    private readonly now: () => number = () => Date.now() / 1000,
  ) {}

  /** Counts one hit against `key` and tells whether it is over the rule. */
  hit(key: string, rule: RateLimitRule): RateLimitState {
    const state = this.peek(key, rule);
    if (!this.enabled || state.retryAfter > 0) return state;
    const window = this.windows.get(key);
    if (window) window.count += 1;
    else this.windows.set(key, { startedAt: this.now(), count: 1 });
    return { ...state, remaining: Math.max(0, state.remaining - 1) };
  }

  /** The state of `key` without counting. */
  peek(key: string, rule: RateLimitRule): RateLimitState {
    const now = this.now();
    this.sweep(now, rule.windowSeconds);
    let window = this.windows.get(key);
    if (window && now - window.startedAt >= rule.windowSeconds) {
      this.windows.delete(key);
      window = undefined;
    }
    const count = window?.count ?? 0;
    const resetAt = Math.ceil((window?.startedAt ?? now) + rule.windowSeconds);
    const over = this.enabled && count >= rule.max;
    return {
      limit: rule.max,
      remaining: Math.max(0, rule.max - count),
      resetAt,
      retryAfter: over ? Math.max(0.001, (window?.startedAt ?? now) + rule.windowSeconds - now) : 0,
    };
  }

  /** Forgets `key` (e.g. after a successful login). */
  reset(key: string): void {
    this.windows.delete(key);
  }

  private sweep(now: number, windowSeconds: number): void {
    if (now < this.sweepAt) return;
    this.sweepAt = now + 60;
    for (const [key, window] of this.windows) {
      if (now - window.startedAt >= Math.max(windowSeconds, 3600)) this.windows.delete(key);
    }
  }
}
