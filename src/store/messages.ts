import type { Insertable, Selectable } from "kysely";
import type { MessagesTable, UserMessagesTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

export type Message = Selectable<MessagesTable>;

export const recipientStore = {
  /** A recipient (RecipientType: a user, a channel or a direct-message group); returns its id. */
  async insert(q: Executor, type: number, typeId: number): Promise<number> {
    const row = await q.insertInto("recipients").values({ type, type_id: typeId }).returning("id").executeTakeFirstOrThrow();
    return row.id;
  },
};

export const messageStore = {
  async insert(q: Executor, row: Insertable<MessagesTable>): Promise<Message> {
    return q.insertInto("messages").values(row).returningAll().executeTakeFirstOrThrow();
  },
};

export const userMessageStore = {
  /** One multi-row insert; rows sorted by (message_id, user_id) append fastest. */
  async insertMany(q: Executor, rows: readonly Insertable<UserMessagesTable>[]): Promise<void> {
    if (rows.length === 0) return;
    await q.insertInto("user_messages").values([...rows]).execute();
  },
};
