import type { Insertable, Selectable, Updateable } from "kysely";
import type { ScheduledMessagesTable } from "../db/schema.js";
import type { Dialect } from "../db/dialect.js";
import type { Executor } from "../db/tx.js";

export type ScheduledMessage = Selectable<ScheduledMessagesTable>;

/** A scheduled message with what its API form needs of its recipient. */
export interface ScheduledMessageWithRecipient extends ScheduledMessage {
  recipient_type: number;
  recipient_type_id: number;
  /** The direct-message group's member ids ("6,10,12"), for group recipients. */
  member_key: string | null;
}

function withRecipient(q: Executor) {
  return q
    .selectFrom("scheduled_messages as sm")
    .innerJoin("recipients as r", "r.id", "sm.recipient_id")
    .leftJoin("direct_message_groups as g", "g.recipient_id", "sm.recipient_id")
    .selectAll("sm")
    .select(["r.type as recipient_type", "r.type_id as recipient_type_id", "g.member_key"]);
}

export const scheduledMessageStore = {
  async insert(q: Executor, row: Insertable<ScheduledMessagesTable>): Promise<number> {
    const inserted = await q.insertInto("scheduled_messages").values(row).returning("id").executeTakeFirstOrThrow();
    return inserted.id;
  },

  async getWithRecipient(q: Executor, id: number): Promise<ScheduledMessageWithRecipient | undefined> {
    return withRecipient(q).where("sm.id", "=", id).executeTakeFirst();
  },

  /** The row, locked against concurrent delivery and edits until the transaction ends. */
  async lock(q: Executor, dialect: Dialect, id: number): Promise<ScheduledMessage | undefined> {
    return dialect.forUpdate(q.selectFrom("scheduled_messages").selectAll().where("id", "=", id)).executeTakeFirst();
  },

  /** Zulip's get_undelivered_scheduled_messages: failed ones included, soonest first. */
  async listUndelivered(q: Executor, realmId: number, senderId: number): Promise<ScheduledMessageWithRecipient[]> {
    return withRecipient(q)
      .where("sm.realm_id", "=", realmId)
      .where("sm.sender_id", "=", senderId)
      .where("sm.delivered", "=", 0)
      .orderBy("sm.scheduled_timestamp")
      .orderBy("sm.id")
      .execute();
  },

  async update(q: Executor, id: number, changes: Updateable<ScheduledMessagesTable>): Promise<void> {
    await q.updateTable("scheduled_messages").set(changes).where("id", "=", id).execute();
  },

  async delete(q: Executor, id: number): Promise<void> {
    await q.deleteFrom("scheduled_messages").where("id", "=", id).execute();
  },
};
