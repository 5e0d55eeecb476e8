import type { Insertable, Selectable, Updateable } from "kysely";
import type { Stream, SubscriptionsTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { insertInBatches } from "./batches.js";
import { compiledQuery } from "../db/compiledQuery.js";

/** activeSubscribers' shape (every channel send), compiled once (db/compiledQuery.ts). */
const activeSubscribersOfOne = compiledQuery((db, p: { recipientId: number }) =>
  db
    .selectFrom("subscriptions")
    .select(["user_id", "is_muted"])
    .where("recipient_id", "=", p.recipientId)
    .where("active", "=", 1)
    .where("is_user_active", "=", 1)
    .orderBy("user_id"),
);

export type Subscription = Selectable<SubscriptionsTable>;

/** Subscription rows: one per (user, channel recipient); `active = 0` keeps a past subscription's settings. */
export const subscriptionStore = {
  async insertMany(q: Executor, rows: readonly Insertable<SubscriptionsTable>[]): Promise<void> {
    if (rows.length === 0) return;
    await insertInBatches(rows, (batch) => q.insertInto("subscriptions").values(batch).execute());
  },

  /** Subscribes one user to these channel recipients, keeping rows that exist. */
  async subscribeUser(q: Executor, userId: number, recipientIds: readonly number[]): Promise<void> {
    if (recipientIds.length === 0) return;
    await q
      .insertInto("subscriptions")
      .values(recipientIds.map((recipient_id) => ({ user_id: userId, recipient_id })))
      .onConflict((oc) => oc.doNothing())
      .execute();
  },

  /** Recipient ids of the channels the user is actively subscribed to. */
  async activeRecipientIds(q: Executor, userId: number): Promise<Set<number>> {
    const rows = await q.selectFrom("subscriptions").select("recipient_id").where("user_id", "=", userId).where("active", "=", 1).execute();
    return new Set(rows.map((r) => r.recipient_id));
  },

  /** Every row (active or not) of these users for these recipients. */
  async listForUsers(q: Executor, userIds: readonly number[], recipientIds: readonly number[]): Promise<Subscription[]> {
    if (userIds.length === 0 || recipientIds.length === 0) return [];
    return q.selectFrom("subscriptions").selectAll().where("user_id", "in", userIds).where("recipient_id", "in", recipientIds).execute();
  },

  async getActive(q: Executor, userId: number, recipientId: number): Promise<Subscription | undefined> {
    return q
      .selectFrom("subscriptions")
      .selectAll()
      .where("user_id", "=", userId)
      .where("recipient_id", "=", recipientId)
      .where("active", "=", 1)
      .executeTakeFirst();
  },

  async listActiveForUser(q: Executor, userId: number): Promise<Subscription[]> {
    return q.selectFrom("subscriptions").selectAll().where("user_id", "=", userId).where("active", "=", 1).orderBy("id").execute();
  },

  /** Colours of all of each user's subscriptions, past ones included (Zulip's pick_colors input). */
  async colorsByUser(q: Executor, userIds: readonly number[]): Promise<Map<number, string[]>> {
    const result = new Map<number, string[]>(userIds.map((id) => [id, []]));
    if (userIds.length === 0) return result;
    const rows = await q
      .selectFrom("subscriptions")
      .select(["user_id", "color"])
      .where("user_id", "in", [...userIds])
      .execute();
    for (const r of rows) result.get(r.user_id)?.push(r.color);
    return result;
  },

  async setActive(q: Executor, ids: readonly number[], active: boolean): Promise<void> {
    if (ids.length === 0) return;
    await q
      .updateTable("subscriptions")
      .set({ active: active ? 1 : 0 })
      .where("id", "in", ids)
      .execute();
  },

  async update(q: Executor, id: number, changes: Updateable<SubscriptionsTable>): Promise<void> {
    await q.updateTable("subscriptions").set(changes).where("id", "=", id).execute();
  },

  /** Active subscribers (active accounts only) of each recipient, ascending ids. */
  async subscriberIds(q: Executor, recipientIds: readonly number[]): Promise<Map<number, number[]>> {
    const result = new Map<number, number[]>(recipientIds.map((id) => [id, []]));
    if (recipientIds.length === 0) return result;
    const rows = await q
      .selectFrom("subscriptions")
      .select(["recipient_id", "user_id"])
      .where("recipient_id", "in", recipientIds)
      .where("active", "=", 1)
      .where("is_user_active", "=", 1)
      .orderBy("user_id")
      .execute();
    for (const row of rows) result.get(row.recipient_id)!.push(row.user_id);
    return result;
  },
};

/** Channel lookups by recipient, and who receives a channel message. */
export const channelRecipientStore = {
  async streamsByRecipientIds(q: Executor, realmId: number, recipientIds: readonly number[]): Promise<Stream[]> {
    if (recipientIds.length === 0) return [];
    return q
      .selectFrom("streams")
      .selectAll()
      .where("realm_id", "=", realmId)
      .where("recipient_id", "in", [...new Set(recipientIds)])
      .execute();
  },

  async streamsInRealm(q: Executor, realmId: number): Promise<Stream[]> {
    return q.selectFrom("streams").selectAll().where("realm_id", "=", realmId).execute();
  },

  /** activeSubscribers of many channels in one statement: recipient id → rows (every id present). */
  async activeSubscribersOf(q: Executor, recipientIds: readonly number[]): Promise<Map<number, Array<{ user_id: number; is_muted: number }>>> {
    const result = new Map(recipientIds.map((id) => [id, [] as Array<{ user_id: number; is_muted: number }>]));
    if (result.size === 0) return result;
    const rows = await q
      .selectFrom("subscriptions")
      .select(["recipient_id", "user_id", "is_muted"])
      .where("recipient_id", "in", [...result.keys()])
      .where("active", "=", 1)
      .where("is_user_active", "=", 1)
      .orderBy("user_id")
      .execute();
    for (const { recipient_id, user_id, is_muted } of rows) result.get(recipient_id)!.push({ user_id, is_muted });
    return result;
  },

  /** Active subscriptions of active users, with their mute state. */
  async activeSubscribers(q: Executor, recipientId: number): Promise<Array<{ user_id: number; is_muted: number }>> {
    return activeSubscribersOfOne.rows(q, { recipientId });
  },
};

export const moveAudienceStore = {
  /** Everyone who was ever subscribed to the channel (active or not), for message moves. */
  async everSubscribedUserIds(q: Executor, recipientId: number): Promise<number[]> {
    const rows = await q.selectFrom("subscriptions").select("user_id").distinct().where("recipient_id", "=", recipientId).orderBy("user_id").execute();
    return rows.map((r) => r.user_id);
  },
};
