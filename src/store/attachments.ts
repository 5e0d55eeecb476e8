import type { Insertable, Selectable } from "kysely";
import type { AttachmentsTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { insertInBatches } from "./batches.js";

export type Attachment = Selectable<AttachmentsTable>;

/** Uploaded files (attachments) and the messages that link them. */
export const attachmentStore = {
  /** Every stored file's key, oldest first (backups list what lives in a bucket). */
  async listPathIds(q: Executor): Promise<string[]> {
    const rows = await q.selectFrom("attachments").select("path_id").orderBy("id").execute();
    return rows.map((r) => r.path_id);
  },

  async insert(q: Executor, row: Insertable<AttachmentsTable>): Promise<Attachment> {
    return q.insertInto("attachments").values(row).returningAll().executeTakeFirstOrThrow();
  },

  async getById(q: Executor, id: number): Promise<Attachment | undefined> {
    return q.selectFrom("attachments").selectAll().where("id", "=", id).executeTakeFirst();
  },

  async getByPathId(q: Executor, pathId: string): Promise<Attachment | undefined> {
    return q.selectFrom("attachments").selectAll().where("path_id", "=", pathId).executeTakeFirst();
  },

  async listByPathIds(q: Executor, realmId: number, pathIds: readonly string[]): Promise<Attachment[]> {
    if (pathIds.length === 0) return [];
    return q
      .selectFrom("attachments")
      .selectAll()
      .where("realm_id", "=", realmId)
      .where("path_id", "in", [...pathIds])
      .execute();
  },

  async listByOwner(q: Executor, ownerId: number): Promise<Attachment[]> {
    return q.selectFrom("attachments").selectAll().where("owner_id", "=", ownerId).orderBy("id").execute();
  },

  /** The linking messages of these attachments with their send time, by attachment id. */
  async linkedMessages(q: Executor, attachmentIds: readonly number[]): Promise<Map<number, { id: number; date_sent: number }[]>> {
    const result = new Map<number, { id: number; date_sent: number }[]>();
    if (attachmentIds.length === 0) return result;
    const rows = await q
      .selectFrom("attachment_messages as am")
      .innerJoin("messages as m", "m.id", "am.message_id")
      .select(["am.attachment_id", "m.id", "m.date_sent"])
      .where("am.attachment_id", "in", [...attachmentIds])
      .orderBy("m.id")
      .execute();
    for (const row of rows) {
      const list = result.get(row.attachment_id) ?? [];
      list.push({ id: row.id, date_sent: row.date_sent });
      result.set(row.attachment_id, list);
    }
    return result;
  },

  async linkedMessageIds(q: Executor, attachmentId: number): Promise<number[]> {
    const rows = await q.selectFrom("attachment_messages").select("message_id").where("attachment_id", "=", attachmentId).execute();
    return rows.map((r) => r.message_id);
  },

  /** Links the attachments to the message (ignoring links that exist). */
  async link(q: Executor, messageId: number, attachmentIds: readonly number[]): Promise<void> {
    if (attachmentIds.length === 0) return;
    await insertInBatches(
      attachmentIds.map((attachment_id) => ({ attachment_id, message_id: messageId })),
      (batch) =>
        q
          .insertInto("attachment_messages")
          .values(batch)
          .onConflict((oc) => oc.columns(["attachment_id", "message_id"]).doNothing())
          .execute(),
    );
  },

  async unlink(q: Executor, messageId: number, attachmentIds: readonly number[]): Promise<void> {
    if (attachmentIds.length === 0) return;
    await q
      .deleteFrom("attachment_messages")
      .where("message_id", "=", messageId)
      .where("attachment_id", "in", [...attachmentIds])
      .execute();
  },

  /** Attachment ids linked by these messages. */
  async idsLinkedBy(q: Executor, messageIds: readonly number[]): Promise<number[]> {
    if (messageIds.length === 0) return [];
    const rows = await q
      .selectFrom("attachment_messages")
      .select("attachment_id")
      .distinct()
      .where("message_id", "in", [...messageIds])
      .execute();
    return rows.map((r) => r.attachment_id);
  },

  /** Of these attachments, the ones no message links any more. */
  async unlinked(q: Executor, attachmentIds: readonly number[]): Promise<Attachment[]> {
    if (attachmentIds.length === 0) return [];
    return q
      .selectFrom("attachments as a")
      .selectAll("a")
      .where("a.id", "in", [...attachmentIds])
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom("attachment_messages as am").select("am.message_id").whereRef("am.attachment_id", "=", "a.id"))),
      )
      .execute();
  },

  async deleteByIds(q: Executor, ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await q
      .deleteFrom("attachment_messages")
      .where("attachment_id", "in", [...ids])
      .execute();
    await q
      .deleteFrom("attachments")
      .where("id", "in", [...ids])
      .execute();
  },

  /** Bytes of every upload in the realm (upload_space_used). */
  async realmSpaceUsed(q: Executor, realmId: number): Promise<number> {
    const row = await q
      .selectFrom("attachments")
      .select((eb) => eb.fn.sum<number | string | null>("size").as("total"))
      .where("realm_id", "=", realmId)
      .executeTakeFirst();
    return Number(row?.total ?? 0);
  },
};
