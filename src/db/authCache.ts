import { hash } from "node:crypto";
import { BoundedCache } from "../util/boundedCache.js";
import type { Realm, User } from "./schema.js";

/**
 * The authentication cache: a credential (an Authorization header, a session key) → the user and
 * realm it authenticated as, so that a long-poll or any other request runs no statement to know
 * who asks. Entries are dropped when a store function writes what authentication reads (users,
 * realms, sessions: see noteAuthChange), after COMMIT, and in multi-process mode on every other
 * process too (events/bus.ts forwards this process's invalidations). A deactivation, role
 * change, new API key or new password therefore cuts the credential off at once everywhere.
 * An entry also lives at most `ttlMs` (a safety net for changes made by another program on the
 * same SQLite file, which has no bus).
 */
export type AuthChange =
  /** `cutOff`: every credential of the user stopped working (deactivation): its event queues go too. */
  | { userId: number; cutOff?: true }
  | { realmId: number }
  /** Web sessions that ended (their public ids, store/sessions.ts sessionIdOf): the queues they registered go too. */
  | { endedSessions: string[] }
  | { all: true };

/**
 * The copy of a change applied while its transaction is still open (noteAuthChange): it drops
 * cache entries early, but listeners wait for the committed one, so that nothing they do (ending
 * event queues, which may start transactions of their own) happens for a change that may roll back.
 */
export type PendingAuthChange = AuthChange & { pending: true };

export interface AuthEntry {
  user: User;
  realm: Realm;
  /** Web sessions: the CSRF token and when the session expires (UNIX seconds). */
  csrfToken?: string;
  sessionExpiresAt?: number;
  /** Web sessions: the public id, and the last use recorded in the database (UNIX seconds; raised in place when a use is recorded). */
  sessionId?: string;
  sessionLastActiveAt?: number;
}

export class AuthCache {
  private readonly entries: BoundedCache<string, AuthEntry>;
  /** Bumped by every invalidation: a lookup that started before one does not store its (maybe stale) answer. */
  private epoch = 0;
  /** Set by events/bus.ts: sends this process's invalidations to the other processes. */
  broadcast: ((change: AuthChange) => void) | null = null;
  /** Told of every change applied here, from this process or another (the event queues: events/queues.ts). */
  private readonly listeners: Array<(change: AuthChange) => void> = [];

  constructor(ttlMs = 30_000, maxEntries = 20_000) {
    this.entries = new BoundedCache(maxEntries, ttlMs);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The epoch to hand back to `set` once the database answered. */
  begin(): number {
    return this.epoch;
  }

  get(key: string, nowMs = Date.now()): AuthEntry | undefined {
    return this.entries.get(key, nowMs);
  }

  set(key: string, entry: AuthEntry, startedAt: number, nowMs = Date.now()): void {
    if (startedAt !== this.epoch) return;
    // Shared by every request of the credential until invalidated: nobody may change them.
    Object.freeze(entry.user);
    Object.freeze(entry.realm);
    this.entries.set(key, { ...entry }, nowMs);
  }

  /** Drops what `change` may have made stale, here and (when a bus is connected) in every process. */
  invalidate(change: AuthChange | PendingAuthChange): void {
    this.apply(change);
    this.broadcast?.(change);
  }

  /** Calls `listener` with every committed change this cache applies (not the early copy of one still in a transaction). */
  listen(listener: (change: AuthChange) => void): void {
    this.listeners.push(listener);
  }

  /** An invalidation from another process: applied here only. */
  apply(change: AuthChange | PendingAuthChange): void {
    this.epoch++;
    if (!("pending" in change)) for (const listener of this.listeners) listener(change);
    if ("all" in change) return this.entries.clear();
    if ("endedSessions" in change) {
      const ended = new Set(change.endedSessions);
      this.entries.deleteWhere((entry) => entry.sessionId !== undefined && ended.has(entry.sessionId));
      return;
    }
    if ("userId" in change) this.entries.deleteWhere((entry) => entry.user.id === change.userId);
    else this.entries.deleteWhere((entry) => entry.realm.id === change.realmId);
  }
}

/**
 * Entries are keyed by a SHA-256 digest of the credential, never by the credential itself: the map's
 * string comparisons then reveal nothing about a secret through their timing (API keys are compared
 * in constant time), and a heap dump holds no usable key. Every request hashes one, so in
 * crypto.hash's single call rather than createHash().update().digest().
 */
const digest = (kind: string, secret: string) => kind + hash("sha256", secret, "base64");
export const sessionCacheKey = (sessionKey: string) => digest("s:", sessionKey);
export const headerCacheKey = (authorization: string) => digest("h:", authorization);

/** The cache of each open database (registered by connect) and of each open transaction (db/tx.ts). */
const cacheOf = new WeakMap<object, AuthCache>();
const pendingOf = new WeakMap<object, { hooks: Array<() => void> }>();

export function registerAuthCache(executor: object, cache: AuthCache, pending?: { hooks: Array<() => void> }): void {
  cacheOf.set(executor, cache);
  if (pending) pendingOf.set(executor, pending);
}

/**
 * For store functions that wrote what authentication reads: in a transaction the cache forgets
 * it after COMMIT (and now, so no request of the meantime is answered from before); outside of
 * one, at once.
 */
export function noteAuthChange(q: object, change: AuthChange): void {
  const cache = cacheOf.get(q);
  if (!cache) return;
  const pending = pendingOf.get(q);
  cache.invalidate(pending ? { ...change, pending: true } : change);
  pending?.hooks.push(() => cache.invalidate(change));
}
