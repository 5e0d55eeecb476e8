import type { RateLimitRule } from "../config.js";
import type { Db } from "../db/connect.js";
import { rateLimitStore } from "../store/rateLimits.js";

/**
 * Fixed-window request counters (Zulip's defaults: 200/min per user, 100/min per IP
 * unauthenticated, 5 failed logins per 30 min per username). One process keeps them in memory
 * (MemoryRateLimiter); the processes of multi-process mode share them in PostgreSQL
 * (SharedRateLimiter, one statement per hit), so a client spreading its requests over the
 * processes gets the same limit as on one.
 */
export interface RateLimiter {
  /** Counts one hit against `key` and tells whether it is over the rule. */
  hit(key: string, rule: RateLimitRule): Promise<RateLimitState>;
  /** The state of `key` without counting. */
  peek(key: string, rule: RateLimitRule): Promise<RateLimitState>;
  /** Forgets `key` (e.g. after a successful login). */
  reset(key: string): Promise<void>;
}

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

export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, Window>();
  private sweepAt = 0;

  constructor(
    private readonly enabled: boolean,
    private readonly now: () => number = () => Date.now() / 1000,
  ) {}

  async hit(key: string, rule: RateLimitRule): Promise<RateLimitState> {
    return this.hitNow(key, rule);
  }

  async peek(key: string, rule: RateLimitRule): Promise<RateLimitState> {
    return this.peekNow(key, rule);
  }

  async reset(key: string): Promise<void> {
    this.windows.delete(key);
  }

  /** `hit`, answered synchronously (GET /events's own path: http/eventsFastPath.ts). */
  hitNow(key: string, rule: RateLimitRule): RateLimitState {
    const state = this.peekNow(key, rule);
    if (!this.enabled || state.retryAfter > 0) return state;
    const window = this.windows.get(key);
    if (window) window.count += 1;
    else this.windows.set(key, { startedAt: this.now(), count: 1 });
    return { ...state, remaining: Math.max(0, state.remaining - 1) };
  }

  private peekNow(key: string, rule: RateLimitRule): RateLimitState {
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

  private sweep(now: number, windowSeconds: number): void {
    if (now < this.sweepAt) return;
    this.sweepAt = now + 60;
    for (const [key, window] of this.windows) {
      if (now - window.startedAt >= Math.max(windowSeconds, 3600)) this.windows.delete(key);
    }
  }
}

/**
 * The counters in the shared database (multi-process mode). Hits over the limit are counted too
 * (one statement, no read-then-write race between processes); the window resets all the same.
 */
export class SharedRateLimiter implements RateLimiter {
  private sweepAtMs = 0;

  constructor(
    private readonly db: Db,
    private readonly enabled: boolean,
    private readonly nowMs: () => number = () => Date.now(),
  ) {}

  async hit(key: string, rule: RateLimitRule): Promise<RateLimitState> {
    if (!this.enabled) return this.peek(key, rule);
    const now = this.nowMs();
    this.sweep(now);
    const window = await rateLimitStore.hit(this.db.kysely, key, now, rule.windowSeconds * 1000);
    return this.state(window, rule, now, window.count > rule.max);
  }

  async peek(key: string, rule: RateLimitRule): Promise<RateLimitState> {
    const now = this.nowMs();
    const window = this.enabled ? await rateLimitStore.get(this.db.kysely, key, now) : null;
    return this.state(window ?? { startedMs: now, count: 0 }, rule, now, window !== null && window.count >= rule.max);
  }

  async reset(key: string): Promise<void> {
    await rateLimitStore.delete(this.db.kysely, key);
  }

  private state(window: { startedMs: number; count: number }, rule: RateLimitRule, now: number, over: boolean): RateLimitState {
    const endsMs = window.startedMs + rule.windowSeconds * 1000;
    return {
      limit: rule.max,
      remaining: Math.max(0, rule.max - window.count),
      resetAt: Math.ceil(endsMs / 1000),
      retryAfter: over ? Math.max(0.001, (endsMs - now) / 1000) : 0,
    };
  }

  /** Expired windows are deleted now and then, by whichever process gets there. */
  private sweep(now: number): void {
    if (now < this.sweepAtMs) return;
    this.sweepAtMs = now + 60_000;
    void rateLimitStore.deleteExpired(this.db.kysely, now).catch(() => {});
  }
}
