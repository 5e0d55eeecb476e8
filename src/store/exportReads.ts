import type { Executor } from "../db/tx.js";
import { SYSTEM_BOT_REALM } from "../models/systemBots.js";

/**
 * The reads of an organization's data export (lib/export/): every table of the organization,
 * and its messages by pages of ids, so the export never holds more than a page of messages.
 * Tables without a realm_id column are reached through their user.
 */
const ID_PAGE = 10_000;

/**
 * Ids per IN list. On SQLite each id is a bound parameter and a statement takes at most 32,766,
 * so a list as long as an organization's users (a full export's consenting users) is read in
 * batches; three lists of this size in one statement still fit. (PostgreSQL gets each list as one
 * array parameter, db/pgDialect.ts.)
 */
const IN_LIST = 10_000;

const chunks = <T>(list: readonly T[], size = IN_LIST): T[][] =>
  Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));

export const exportReadStore = {
  realm: (q: Executor, realmId: number) => q.selectFrom("realms").selectAll().where("id", "=", realmId).executeTakeFirstOrThrow(),
  users: (q: Executor, realmId: number) => q.selectFrom("users").selectAll().where("realm_id", "=", realmId).orderBy("id").execute(),

  /** The cross-realm system bots (Zulip's zerver_userprofile_crossrealm). */
  systemBots: (q: Executor) =>
    q
      .selectFrom("users")
      .innerJoin("realms", "realms.id", "users.realm_id")
      .select(["users.id", "users.email", "users.recipient_id"])
      .where("realms.string_id", "=", SYSTEM_BOT_REALM)
      .orderBy("users.id")
      .execute(),

  streams: (q: Executor, realmId: number) => q.selectFrom("streams").selectAll().where("realm_id", "=", realmId).orderBy("id").execute(),
  directMessageGroups: (q: Executor, realmId: number) =>
    q.selectFrom("direct_message_groups").selectAll().where("realm_id", "=", realmId).orderBy("id").execute(),

  async recipients(q: Executor, ids: number[]) {
    const rows = [];
    for (const chunk of chunks(ids)) rows.push(...(await q.selectFrom("recipients").selectAll().where("id", "in", chunk).execute()));
    return rows.sort((a, b) => a.id - b.id);
  },

  subscriptions: (q: Executor, realmId: number) =>
    q
      .selectFrom("subscriptions")
      .innerJoin("users", "users.id", "subscriptions.user_id")
      .selectAll("subscriptions")
      .where("users.realm_id", "=", realmId)
      .orderBy("subscriptions.id")
      .execute(),
  alertWords: (q: Executor, realmId: number) =>
    q
      .selectFrom("alert_words")
      .innerJoin("users", "users.id", "alert_words.user_id")
      .selectAll("alert_words")
      .where("users.realm_id", "=", realmId)
      .orderBy("alert_words.id")
      .execute(),
  customProfileFieldValues: (q: Executor, realmId: number) =>
    q
      .selectFrom("custom_profile_field_values")
      .innerJoin("users", "users.id", "custom_profile_field_values.user_id")
      .selectAll("custom_profile_field_values")
      .where("users.realm_id", "=", realmId)
      .orderBy("custom_profile_field_values.id")
      .execute(),
  mutedUsers: (q: Executor, realmId: number) =>
    q
      .selectFrom("muted_users")
      .innerJoin("users", "users.id", "muted_users.user_id")
      .selectAll("muted_users")
      .where("users.realm_id", "=", realmId)
      .orderBy("muted_users.user_id")
      .orderBy("muted_users.muted_user_id")
      .execute(),
  userStatuses: (q: Executor, realmId: number) =>
    q
      .selectFrom("user_statuses")
      .innerJoin("users", "users.id", "user_statuses.user_id")
      .selectAll("user_statuses")
      .where("users.realm_id", "=", realmId)
      .orderBy("user_statuses.user_id")
      .execute(),
  userTopics: (q: Executor, realmId: number) =>
    q
      .selectFrom("user_topics")
      .innerJoin("users", "users.id", "user_topics.user_id")
      .selectAll("user_topics")
      .where("users.realm_id", "=", realmId)
      .orderBy("user_topics.id")
      .execute(),
  savedSnippets: (q: Executor, realmId: number) => q.selectFrom("saved_snippets").selectAll().where("realm_id", "=", realmId).orderBy("id").execute(),

  userGroups: (q: Executor, realmId: number) => q.selectFrom("user_groups").selectAll().where("realm_id", "=", realmId).orderBy("id").execute(),
  userGroupMembers: (q: Executor, realmId: number) =>
    q
      .selectFrom("user_group_members")
      .innerJoin("user_groups", "user_groups.id", "user_group_members.group_id")
      .selectAll("user_group_members")
      .where("user_groups.realm_id", "=", realmId)
      .orderBy("user_group_members.group_id")
      .orderBy("user_group_members.user_id")
      .execute(),
  userGroupSubgroups: (q: Executor, realmId: number) =>
    q
      .selectFrom("user_group_subgroups")
      .innerJoin("user_groups", "user_groups.id", "user_group_subgroups.supergroup_id")
      .selectAll("user_group_subgroups")
      .where("user_groups.realm_id", "=", realmId)
      .orderBy("user_group_subgroups.supergroup_id")
      .orderBy("user_group_subgroups.subgroup_id")
      .execute(),

  defaultStreams: (q: Executor, realmId: number) => q.selectFrom("default_streams").selectAll().where("realm_id", "=", realmId).orderBy("stream_id").execute(),
  customProfileFields: (q: Executor, realmId: number) =>
    q.selectFrom("custom_profile_fields").selectAll().where("realm_id", "=", realmId).orderBy("id").execute(),
  realmEmoji: (q: Executor, realmId: number) => q.selectFrom("realm_emoji").selectAll().where("realm_id", "=", realmId).orderBy("id").execute(),
  linkifiers: (q: Executor, realmId: number) => q.selectFrom("realm_linkifiers").selectAll().where("realm_id", "=", realmId).orderBy("id").execute(),
  playgrounds: (q: Executor, realmId: number) => q.selectFrom("realm_playgrounds").selectAll().where("realm_id", "=", realmId).orderBy("id").execute(),
  presences: (q: Executor, realmId: number) => q.selectFrom("user_presences").selectAll().where("realm_id", "=", realmId).orderBy("user_id").execute(),
  presenceSequences: (q: Executor, realmId: number) => q.selectFrom("presence_sequences").selectAll().where("realm_id", "=", realmId).execute(),
  auditLog: (q: Executor, realmId: number) => q.selectFrom("audit_log").selectAll().where("realm_id", "=", realmId).orderBy("id").execute(),
  realmExports: (q: Executor, realmId: number) => q.selectFrom("realm_exports").selectAll().where("realm_id", "=", realmId).orderBy("id").execute(),

  botServices: (q: Executor, realmId: number) =>
    q
      .selectFrom("bot_services")
      .innerJoin("users", "users.id", "bot_services.bot_id")
      .selectAll("bot_services")
      .where("users.realm_id", "=", realmId)
      .orderBy("bot_services.id")
      .execute(),
  botStorage: (q: Executor, realmId: number) =>
    q
      .selectFrom("bot_storage")
      .innerJoin("users", "users.id", "bot_storage.bot_id")
      .selectAll("bot_storage")
      .where("users.realm_id", "=", realmId)
      .orderBy("bot_storage.id")
      .execute(),

  async scheduledMessages(q: Executor, realmId: number, senderIds: number[]) {
    const rows = [];
    for (const chunk of chunks(senderIds))
      rows.push(...(await q.selectFrom("scheduled_messages").selectAll().where("realm_id", "=", realmId).where("sender_id", "in", chunk).execute()));
    return rows.sort((a, b) => a.id - b.id);
  },

  /** The names of the clients the organization's messages were sent with (Zulip's zerver_client). */
  async sendingClients(q: Executor, realmId: number): Promise<string[]> {
    const rows = await q.selectFrom("messages").select("sending_client").distinct().where("realm_id", "=", realmId).orderBy("sending_client").execute();
    return rows.map((r) => r.sending_client);
  },

  /** Ids of all the organization's messages, in pages. */
  async allMessageIds(q: Executor, realmId: number): Promise<number[]> {
    const ids: number[] = [];
    for (let after = 0; ;) {
      const page = await q.selectFrom("messages").select("id").where("realm_id", "=", realmId).where("id", ">", after).orderBy("id").limit(ID_PAGE).execute();
      for (const row of page) ids.push(row.id);
      const last = page.at(-1);
      if (page.length < ID_PAGE || last === undefined) return ids;
      after = last.id;
    }
  },

  /**
   * Ids of the organization's messages to `recipientIds` (sent by one of `senderIds`, received by
   * one of `readByAnyOf`, when given), sorted, read in pages (Zulip's get_id_list_gently_from_database).
   * Each list is read in batches of `batchSize` ids (IN_LIST; smaller in tests).
   */
  async messageIdsTo(
    q: Executor,
    realmId: number,
    recipientIds: number[],
    opts: { senderIds?: number[]; readByAnyOf?: number[]; batchSize?: number } = {},
  ): Promise<number[]> {
    const ids: number[] = [];
    if (opts.senderIds?.length === 0 || opts.readByAnyOf?.length === 0) return ids;
    const size = opts.batchSize ?? IN_LIST;
    const senderBatches = opts.senderIds ? chunks(opts.senderIds, size) : [undefined];
    const readerBatches = opts.readByAnyOf ? chunks(opts.readByAnyOf, size) : [undefined];
    let batches = 0;
    for (const recipients of chunks(recipientIds, size)) {
      for (const senders of senderBatches) {
        for (const readers of readerBatches) {
          batches++;
          for (let after = 0; ;) {
            let query = q
              .selectFrom("messages")
              .select("messages.id")
              .where("messages.realm_id", "=", realmId)
              .where("messages.recipient_id", "in", recipients)
              .where("messages.id", ">", after);
            if (senders) query = query.where("messages.sender_id", "in", senders);
            if (readers) {
              query = query.where(({ exists, selectFrom }) =>
                exists(
                  selectFrom("user_messages")
                    .select("user_messages.message_id")
                    .whereRef("user_messages.message_id", "=", "messages.id")
                    .where("user_messages.user_id", "in", readers),
                ),
              );
            }
            const page = await query.orderBy("messages.id").limit(ID_PAGE).execute();
            for (const row of page) ids.push(row.id);
            const last = page.at(-1);
            if (page.length < ID_PAGE || last === undefined) break;
            after = last.id;
          }
        }
      }
    }
    // A message read by users of two reader batches is found twice.
    return batches > 1 ? [...new Set(ids)].sort((a, b) => a - b) : ids;
  },

  messages: (q: Executor, ids: number[]) => q.selectFrom("messages").selectAll().where("id", "in", ids).orderBy("id").execute(),
  userMessages: (q: Executor, messageIds: number[]) =>
    q.selectFrom("user_messages").selectAll().where("message_id", "in", messageIds).orderBy("message_id").orderBy("user_id").execute(),
  reactions: (q: Executor, messageIds: number[]) => q.selectFrom("reactions").selectAll().where("message_id", "in", messageIds).orderBy("id").execute(),
  attachmentLinks: (q: Executor, messageIds: number[]) =>
    q.selectFrom("attachment_messages").selectAll().where("message_id", "in", messageIds).orderBy("attachment_id").orderBy("message_id").execute(),

  async attachments(q: Executor, realmId: number, ids: number[]) {
    const rows = [];
    for (const chunk of chunks(ids))
      rows.push(...(await q.selectFrom("attachments").selectAll().where("realm_id", "=", realmId).where("id", "in", chunk).execute()));
    return rows.sort((a, b) => a.id - b.id);
  },

  /** The organization's uploads and message history size (the limits of an export by the API). */
  async size(q: Executor, realmId: number): Promise<{ messages: number; uploadBytes: number }> {
    const messages = await q
      .selectFrom("messages")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("realm_id", "=", realmId)
      .executeTakeFirstOrThrow();
    const uploads = await q
      .selectFrom("attachments")
      .select((eb) => eb.fn.sum<number>("size").as("n"))
      .where("realm_id", "=", realmId)
      .executeTakeFirstOrThrow();
    return { messages: Number(messages.n), uploadBytes: Number(uploads.n ?? 0) };
  },
};
