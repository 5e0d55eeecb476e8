import type { Selectable } from "kysely";
import type { DirectMessageGroupsTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { RecipientType } from "../models/roles.js";
import { defined } from "../util/defined.js";
import { recipientStore } from "./recipients.js";

export type DirectMessageGroup = Selectable<DirectMessageGroupsTable>;

/** Zulip's direct-message-group key: the member ids, sorted, comma-separated. */
export function memberKey(userIds: Iterable<number>): string {
  return [...new Set(userIds)].sort((a, b) => a - b).join(",");
}

export const directMessageGroupStore = {
  async getByMembers(q: Executor, realmId: number, userIds: Iterable<number>): Promise<DirectMessageGroup | undefined> {
    return q.selectFrom("direct_message_groups").selectAll().where("realm_id", "=", realmId).where("member_key", "=", memberKey(userIds)).executeTakeFirst();
  },

  /** The group of exactly these users, created with its recipient on first use. */
  async getOrCreate(q: Executor, realmId: number, userIds: readonly number[]): Promise<DirectMessageGroup> {
    const existing = await this.getByMembers(q, realmId, userIds);
    if (existing) return existing;
    const key = memberKey(userIds);
    const group = await q
      .insertInto("direct_message_groups")
      .values({ realm_id: realmId, member_key: key, group_size: key.split(",").length })
      .returningAll()
      .executeTakeFirstOrThrow();
    const recipientId = await recipientStore.insert(q, RecipientType.DIRECT_MESSAGE_GROUP, group.id);
    await q.updateTable("direct_message_groups").set({ recipient_id: recipientId }).where("id", "=", group.id).execute();
    return { ...group, recipient_id: recipientId };
  },

  /** Groups by recipient id, with their member ids. */
  async listByRecipientIds(q: Executor, recipientIds: readonly number[]): Promise<Map<number, number[]>> {
    if (recipientIds.length === 0) return new Map();
    const rows = await q
      .selectFrom("direct_message_groups")
      .select(["recipient_id", "member_key"])
      .where("recipient_id", "in", [...recipientIds])
      .execute();
    return new Map(rows.map((r) => [r.recipient_id, r.member_key.split(",").map(Number)]));
  },

  /** Recipient ids of the realm's groups that contain every one of `userIds`. */
  async recipientIdsContaining(q: Executor, realmId: number, userIds: readonly number[]): Promise<number[]> {
    let query = q.selectFrom("direct_message_groups").select(["recipient_id", "member_key"]).where("realm_id", "=", realmId);
    for (const id of userIds) {
      query = query.where((eb) =>
        eb.or([
          eb("member_key", "=", String(id)),
          eb("member_key", "like", `${id},%`),
          eb("member_key", "like", `%,${id}`),
          eb("member_key", "like", `%,${id},%`),
        ]),
      );
    }
    return (await query.execute()).map((r) => r.recipient_id);
  },
};

/**
 * The recipient of a direct message among `people` (the sender one of them), as Zulip stores it:
 * between two people, or to oneself, the other one's personal recipient; among more, their
 * group's (created on first use).
 */
export async function directMessageRecipientId(
  q: Executor,
  realmId: number,
  people: ReadonlyArray<{ id: number; recipient_id: number }>,
  senderId: number,
): Promise<number> {
  const ids = new Set(people.map((p) => p.id));
  if (ids.size > 2) return (await directMessageGroupStore.getOrCreate(q, realmId, [...ids])).recipient_id;
  return defined(people.find((p) => p.id !== senderId) ?? people.find((p) => p.id === senderId), "the sender among the people").recipient_id;
}
