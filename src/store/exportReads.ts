import type { Executor } from "../db/tx.js";
import { SYSTEM_BOT_REALM } from "../lib/realms.js";

/**
 * The reads of an organization's data export (lib/export/): every table of the organization,
 * and its messages by pages of ids, so the export never holds more than a page of messages.
 * Tables without a realm_id column are reached through their user.
 */
const ID_PAGE = 10_000;

type UserKeyed = "alert_words" | "custom_profile_field_values" | "muted_users" | "user_statuses" | "user_topics" | "saved_snippets" | "subscriptions";

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
  directMessageGroups: (q: Executor, realmId: number) => q.selectFrom("direct_message_groups").selectAll().where("realm_id", "=", realmId).orderBy("id").execute(),

  async recipients(q: Executor, ids: number[]) {
    const rows = [];
    for (let i = 0; i < ids.length; i += 1000) rows.push(...(await q.selectFrom("recipients").selectAll().where("id", "in", ids.slice(i, i + 1000)).execute()));
    return rows.sort((a, b) => a.id - b.id);
  },

  /** Rows of a table keyed by user, for the organization's users. */
  userKeyed<T extends UserKeyed>(q: Executor, table: T, realmId: number) {
    return (q as Executor)
      .selectFrom(table as "alert_words")
      .innerJoin("users", "users.id", `${table as "alert_words"}.user_id`)
      .selectAll(table as "alert_words")
      .where("users.realm_id", "=", realmId)
      .execute() as unknown as Promise<Array<import("kysely").Selectable<import("../db/schema.js").Database[T]>>>;
  },

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
  customProfileFields: (q: Executor, realmId: number) => q.selectFrom("custom_profile_fields").selectAll().where("realm_id", "=", realmId).orderBy("id").execute(),
  realmEmoji: (q: Executor, realmId: number) => q.selectFrom("realm_emoji").selectAll().where("realm_id", "=", realmId).orderBy("id").execute(),
  linkifiers: (q: Executor, realmId: number) => q.selectFrom("realm_linkifiers").selectAll().where("realm_id", "=", realmId).orderBy("id").execute(),
  playgrounds: (q: Executor, realmId: number) => q.selectFrom("realm_playgrounds").selectAll().where("realm_id", "=", realmId).orderBy("id").execute(),
  presences: (q: Executor, realmId: number) => q.selectFrom("user_presences").selectAll().where("realm_id", "=", realmId).orderBy("user_id").execute(),
  presenceSequences: (q: Executor, realmId: number) => q.selectFrom("presence_sequences").selectAll().where("realm_id", "=", realmId).execute(),
  auditLog: (q: Executor, realmId: number) => q.selectFrom("audit_log").selectAll().where("realm_id", "=", realmId).orderBy("id").execute(),
  realmExports: (q: Executor, realmId: number) => q.selectFrom("realm_exports").selectAll().where("realm_id", "=", realmId).orderBy("id").execute(),

  botServices: (q: Executor, realmId: number) =>
    q.selectFrom("bot_services").innerJoin("users", "users.id", "bot_services.bot_id").selectAll("bot_services").where("users.realm_id", "=", realmId).orderBy("bot_services.id").execute(),
  botStorage: (q: Executor, realmId: number) =>
    q.selectFrom("bot_storage").innerJoin("users", "users.id", "bot_storage.bot_id").selectAll("bot_storage").where("users.realm_id", "=", realmId).orderBy("bot_storage.id").execute(),

  scheduledMessages: (q: Executor, realmId: number, senderIds: number[]) =>
    senderIds.length === 0
      ? Promise.resolve([])
      : q.selectFrom("scheduled_messages").selectAll().where("realm_id", "=", realmId).where("sender_id", "in", senderIds).orderBy("id").execute(),

  /** The names of the clients the organization's messages were sent with (Zulip's zerver_client). */
  async sendingClients(q: Executor, realmId: number): Promise<string[]> {
    const rows = await q.selectFrom("messages").select("sending_client").distinct().where("realm_id", "=", realmId).orderBy("sending_client").execute();
    return rows.map((r) => r.sending_client);
  },

  /** Ids of all the organization's messages, in pages. */
  async allMessageIds(q: Executor, realmId: number): Promise<number[]> {
    const ids: number[] = [];
    for (let after = 0; ; ) {
      const page = await q.selectFrom("messages").select("id").where("realm_id", "=", realmId).where("id", ">", after).orderBy("id").limit(ID_PAGE).execute();
      for (const row of page) ids.push(row.id);
      if (page.length < ID_PAGE) return ids;
      after = page[page.length - 1].id;
    }
  },

  /** Ids of the organization's messages to `recipientIds`, in pages (Zulip's get_id_list_gently_from_database). */
  async messageIdsTo(q: Executor, realmId: number, recipientIds: number[], opts: { senderIds?: number[]; readByAnyOf?: number[] } = {}): Promise<number[]> {
    const ids: number[] = [];
    if (recipientIds.length === 0 || opts.senderIds?.length === 0 || opts.readByAnyOf?.length === 0) return ids;
    for (let after = 0; ; ) {
      let query = q.selectFrom("messages").select("messages.id").where("messages.realm_id", "=", realmId).where("messages.recipient_id", "in", recipientIds).where("messages.id", ">", after);
      if (opts.senderIds) query = query.where("messages.sender_id", "in", opts.senderIds);
      const readers = opts.readByAnyOf;
      if (readers) {
        query = query.where(({ exists, selectFrom }) =>
          exists(selectFrom("user_messages").select("user_messages.message_id").whereRef("user_messages.message_id", "=", "messages.id").where("user_messages.user_id", "in", readers)),
        );
      }
      const page = await query.orderBy("messages.id").limit(ID_PAGE).execute();
      for (const row of page) ids.push(row.id);
      if (page.length < ID_PAGE) return ids;
      after = page[page.length - 1].id;
    }
  },

  messages: (q: Executor, ids: number[]) => q.selectFrom("messages").selectAll().where("id", "in", ids).orderBy("id").execute(),
  userMessages: (q: Executor, messageIds: number[]) =>
    q.selectFrom("user_messages").selectAll().where("message_id", "in", messageIds).orderBy("message_id").orderBy("user_id").execute(),
  reactions: (q: Executor, messageIds: number[]) => q.selectFrom("reactions").selectAll().where("message_id", "in", messageIds).orderBy("id").execute(),
  attachmentLinks: (q: Executor, messageIds: number[]) =>
    q.selectFrom("attachment_messages").selectAll().where("message_id", "in", messageIds).orderBy("attachment_id").orderBy("message_id").execute(),

  async attachments(q: Executor, realmId: number, ids: number[]) {
    const rows = [];
    for (let i = 0; i < ids.length; i += 1000) {
      rows.push(...(await q.selectFrom("attachments").selectAll().where("realm_id", "=", realmId).where("id", "in", ids.slice(i, i + 1000)).execute()));
    }
    return rows.sort((a, b) => a.id - b.id);
  },

  /** The organization's uploads and message history size (the limits of an export by the API). */
  async size(q: Executor, realmId: number): Promise<{ messages: number; uploadBytes: number }> {
    const messages = await q.selectFrom("messages").select((eb) => eb.fn.countAll<number>().as("n")).where("realm_id", "=", realmId).executeTakeFirstOrThrow();
    const uploads = await q.selectFrom("attachments").select((eb) => eb.fn.sum<number>("size").as("n")).where("realm_id", "=", realmId).executeTakeFirstOrThrow();
    return { messages: Number(messages.n), uploadBytes: Number(uploads.n ?? 0) };
  },
};
