import type { Kysely } from "kysely";
import type { ParleyEvent } from "../events/dispatch.js";

/**
 * Per-organization values that every send reads and that rarely change (the linkifiers, the alert
 * words), kept in memory so that a send runs no statement for them. One cache per open database:
 * keyed by the Kysely adapter, which a database's Kysely instance and all its transactions share
 * (so two servers in one process, as in the tests, never see each other's values).
 *
 * Invalidation: an entry kind names the event type that announces its change (`realm_linkifiers`,
 * `alert_words`); `invalidateOnEvent` is subscribed to the process's EventDispatcher, which sees
 * this process's committed events and, in multi-process mode, the other processes' (events/bus.ts),
 * so a change committed anywhere drops the entries everywhere. The events carry no realm id, so a
 * change drops that kind for every organization (changes are rare; the next send reloads).
 * A load that started before an invalidation does not store its (maybe stale) answer, and an entry
 * lives at most `TTL_MS` (a safety net for a bus message lost across a NATS reconnect, or another
 * program writing the same SQLite file).
 */
export type RealmCacheKind = "realm_linkifiers" | "alert_words";

const TTL_MS = 30_000;

interface Entry {
  value: unknown;
  expiresAtMs: number;
}

export class RealmReadCache {
  private readonly entries = new Map<string, Entry>();
  /** Bumped by every invalidation of a kind: a load that started before it does not store. */
  private readonly epochs = new Map<RealmCacheKind, number>();

  async get<T>(kind: RealmCacheKind, realmId: number, load: () => Promise<T>): Promise<T> {
    const key = `${kind} ${realmId}`;
    const hit = this.entries.get(key);
    const now = Date.now();
    if (hit && hit.expiresAtMs > now) return hit.value as T;
    const epoch = this.epochs.get(kind) ?? 0;
    const value = await load();
    if ((this.epochs.get(kind) ?? 0) === epoch) this.entries.set(key, { value, expiresAtMs: now + TTL_MS });
    return value;
  }

  /**
   * Every entry held lives another TTL from now. For the tests' query counts, which measure a warm
   * cache: on a slow run an entry could otherwise expire between a warm-up and the counted request.
   */
  renew(nowMs = Date.now()): void {
    for (const entry of this.entries.values()) entry.expiresAtMs = nowMs + TTL_MS;
  }

  invalidate(kind: RealmCacheKind): void {
    this.epochs.set(kind, (this.epochs.get(kind) ?? 0) + 1);
    for (const key of this.entries.keys()) if (key.startsWith(`${kind} `)) this.entries.delete(key);
  }

  /** An EventDispatcher listener: drops what a committed event (local or another process's) changed. */
  readonly invalidateOnEvent = (event: ParleyEvent): void => {
    if (event.type === "realm_linkifiers" || event.type === "alert_words") this.invalidate(event.type);
  };
}

const cacheOf = new WeakMap<object, RealmReadCache>();

/** The cache of the database `q` (a Kysely instance or one of its transactions) belongs to. */
export function realmReadCache(q: Kysely<any>): RealmReadCache {
  const adapter = q.getExecutor().adapter;
  let cache = cacheOf.get(adapter);
  if (!cache) cacheOf.set(adapter, (cache = new RealmReadCache()));
  return cache;
}
