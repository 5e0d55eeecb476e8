import { type Kysely, sql } from "kysely";
import type { Dialect } from "../dialect.js";

/**
 * The initial schema, designed for the whole product. Frozen once merged: later changes are new
 * migrations. Conventions: snake_case; times are UNIX seconds in 64-bit integers; booleans are
 * integers 0/1 on both engines; JSON is stored as text.
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  const bool = (name: string, dflt: 0 | 1) => [name, "integer", (c: any) => c.notNull().defaultTo(dflt)] as const;

  await d
    .addIdColumn(db.schema.createTable("realms"))
    .addColumn("string_id", "text", (c) => c.notNull().unique())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("date_created", d.bigint, (c) => c.notNull())
    .addColumn(...bool("deactivated", 0))
    .addColumn("icon_source", "text", (c) => c.notNull().defaultTo("G"))
    .addColumn("icon_version", "integer", (c) => c.notNull().defaultTo(1))
    // null: keep messages forever (the API's -1)
    .addColumn("message_retention_days", "integer")
    // Everything else the realm can configure, as a JSON object of non-default values;
    // defaults live in src/models/realmSettings.ts.
    .addColumn("settings", "text", (c) => c.notNull().defaultTo("{}"))
    .execute();

  await d
    .addIdColumn(db.schema.createTable("users"))
    .addColumn("realm_id", d.bigint, (c) => c.notNull().references("realms.id"))
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("delivery_email", "text", (c) => c.notNull())
    .addColumn("full_name", "text", (c) => c.notNull())
    .addColumn("role", "integer", (c) => c.notNull().defaultTo(400))
    .addColumn(...bool("is_active", 1))
    .addColumn(...bool("is_bot", 0))
    .addColumn("bot_type", "integer")
    .addColumn("bot_owner_id", d.bigint, (c) => c.references("users.id"))
    .addColumn(...bool("is_mirror_dummy", 0))
    .addColumn("date_joined", d.bigint, (c) => c.notNull())
    .addColumn("timezone", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("avatar_source", "text", (c) => c.notNull().defaultTo("G"))
    .addColumn("avatar_version", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("api_key", "text", (c) => c.notNull().unique())
    .addColumn("password_hash", "text")
    .addColumn(...bool("can_create_users", 0))
    .addColumn(...bool("can_change_user_emails", 0))
    .addColumn(...bool("can_forge_sender", 0))
    // Zulip's soft deactivation: idle users get no per-message rows until they come back.
    .addColumn(...bool("long_term_idle", 0))
    .addColumn("last_active_message_id", d.bigint)
    // Personal settings (PATCH /settings) as a JSON object of non-default values;
    // defaults live in src/models/userSettings.ts.
    .addColumn("settings", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("recipient_id", d.bigint)
    .execute();
  await sql`create unique index users_realm_email on users (realm_id, lower(email))`.execute(db);
  await sql`create index users_realm_delivery_email on users (realm_id, lower(delivery_email))`.execute(db);

  // A user group: named groups, system groups (role:*) and anonymous groups that hold the value
  // of a group setting (named = 0).
  await d
    .addIdColumn(db.schema.createTable("user_groups"))
    .addColumn("realm_id", d.bigint, (c) => c.notNull().references("realms.id"))
    .addColumn("name", "text")
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn(...bool("named", 1))
    .addColumn(...bool("is_system_group", 0))
    .addColumn(...bool("deactivated", 0))
    .addColumn("date_created", d.bigint)
    .addColumn("creator_id", d.bigint, (c) => c.references("users.id"))
    .addColumn("can_add_members_group_id", d.bigint, (c) => c.references("user_groups.id"))
    .addColumn("can_join_group_id", d.bigint, (c) => c.references("user_groups.id"))
    .addColumn("can_leave_group_id", d.bigint, (c) => c.references("user_groups.id"))
    .addColumn("can_manage_group_id", d.bigint, (c) => c.references("user_groups.id"))
    .addColumn("can_mention_group_id", d.bigint, (c) => c.references("user_groups.id"))
    .addColumn("can_remove_members_group_id", d.bigint, (c) => c.references("user_groups.id"))
    .execute();
  await sql`create unique index user_groups_realm_name on user_groups (realm_id, name) where named = 1`.execute(db);

  await db.schema
    .createTable("user_group_members")
    .addColumn("group_id", d.bigint, (c) => c.notNull().references("user_groups.id"))
    .addColumn("user_id", d.bigint, (c) => c.notNull().references("users.id"))
    .addPrimaryKeyConstraint("user_group_members_pk", ["group_id", "user_id"])
    .execute();
  await db.schema.createIndex("user_group_members_user").on("user_group_members").columns(["user_id"]).execute();

  await db.schema
    .createTable("user_group_subgroups")
    .addColumn("supergroup_id", d.bigint, (c) => c.notNull().references("user_groups.id"))
    .addColumn("subgroup_id", d.bigint, (c) => c.notNull().references("user_groups.id"))
    .addPrimaryKeyConstraint("user_group_subgroups_pk", ["supergroup_id", "subgroup_id"])
    .execute();
  await db.schema.createIndex("user_group_subgroups_sub").on("user_group_subgroups").columns(["subgroup_id"]).execute();

  // Who a message goes to: type 1 = one user (personal), 2 = a channel, 3 = a direct-message group.
  await d
    .addIdColumn(db.schema.createTable("recipients"))
    .addColumn("type", "integer", (c) => c.notNull())
    .addColumn("type_id", d.bigint, (c) => c.notNull())
    .addUniqueConstraint("recipients_type_type_id", ["type", "type_id"])
    .execute();

  await d
    .addIdColumn(db.schema.createTable("direct_message_groups"))
    .addColumn("realm_id", d.bigint, (c) => c.notNull().references("realms.id"))
    // sorted, comma-separated user ids: the identity of the group
    .addColumn("member_key", "text", (c) => c.notNull())
    .addColumn("group_size", "integer", (c) => c.notNull())
    .addColumn("recipient_id", d.bigint, (c) => c.references("recipients.id"))
    .addUniqueConstraint("direct_message_groups_key", ["realm_id", "member_key"])
    .execute();

  await d
    .addIdColumn(db.schema.createTable("streams"))
    .addColumn("realm_id", d.bigint, (c) => c.notNull().references("realms.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("rendered_description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn(...bool("invite_only", 0))
    .addColumn(...bool("is_web_public", 0))
    .addColumn(...bool("history_public_to_subscribers", 1))
    .addColumn(...bool("is_archived", 0))
    .addColumn("date_created", d.bigint, (c) => c.notNull())
    .addColumn("creator_id", d.bigint, (c) => c.references("users.id"))
    // null inherits the realm's setting; -1 keeps forever
    .addColumn("message_retention_days", "integer")
    .addColumn("recipient_id", d.bigint, (c) => c.references("recipients.id"))
    .addColumn("first_message_id", d.bigint)
    .addColumn("can_add_subscribers_group_id", d.bigint, (c) => c.references("user_groups.id"))
    .addColumn("can_remove_subscribers_group_id", d.bigint, (c) => c.references("user_groups.id"))
    .addColumn("can_administer_channel_group_id", d.bigint, (c) => c.references("user_groups.id"))
    .addColumn("can_send_message_group_id", d.bigint, (c) => c.references("user_groups.id"))
    .addColumn("can_subscribe_group_id", d.bigint, (c) => c.references("user_groups.id"))
    .execute();
  await sql`create unique index streams_realm_name on streams (realm_id, lower(name))`.execute(db);

  await db.schema
    .createTable("default_streams")
    .addColumn("realm_id", d.bigint, (c) => c.notNull().references("realms.id"))
    .addColumn("stream_id", d.bigint, (c) => c.notNull().references("streams.id"))
    .addPrimaryKeyConstraint("default_streams_pk", ["realm_id", "stream_id"])
    .execute();

  await d
    .addIdColumn(db.schema.createTable("subscriptions"))
    .addColumn("user_id", d.bigint, (c) => c.notNull().references("users.id"))
    .addColumn("recipient_id", d.bigint, (c) => c.notNull().references("recipients.id"))
    .addColumn(...bool("active", 1))
    .addColumn(...bool("is_user_active", 1))
    .addColumn("color", "text", (c) => c.notNull().defaultTo("#c2c2c2"))
    .addColumn(...bool("pin_to_top", 0))
    .addColumn(...bool("is_muted", 0))
    // null inherits the user's setting
    .addColumn("desktop_notifications", "integer")
    .addColumn("audible_notifications", "integer")
    .addColumn("push_notifications", "integer")
    .addColumn("email_notifications", "integer")
    .addColumn("wildcard_mentions_notify", "integer")
    .addUniqueConstraint("subscriptions_user_recipient", ["user_id", "recipient_id"])
    .execute();
  await db.schema.createIndex("subscriptions_recipient").on("subscriptions").columns(["recipient_id", "active"]).execute();

  await d
    .addIdColumn(db.schema.createTable("messages"))
    .addColumn("realm_id", d.bigint, (c) => c.notNull().references("realms.id"))
    .addColumn("sender_id", d.bigint, (c) => c.notNull().references("users.id"))
    .addColumn("recipient_id", d.bigint, (c) => c.notNull().references("recipients.id"))
    .addColumn("subject", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("content", "text", (c) => c.notNull())
    .addColumn("rendered_content", "text")
    .addColumn("rendered_content_version", "integer")
    .addColumn("date_sent", d.bigint, (c) => c.notNull())
    .addColumn("sending_client", "text", (c) => c.notNull().defaultTo("API"))
    .addColumn("last_edit_time", d.bigint)
    .addColumn("last_moved_time", d.bigint)
    .addColumn("edit_history", "text")
    .addColumn(...bool("has_attachment", 0))
    .addColumn(...bool("has_image", 0))
    .addColumn(...bool("has_link", 0))
    .addColumn(...bool("is_channel_message", 0))
    .execute();
  await db.schema.createIndex("messages_recipient_topic").on("messages").columns(["recipient_id", "subject", "id"]).execute();
  await db.schema.createIndex("messages_recipient").on("messages").columns(["recipient_id", "id"]).execute();
  await db.schema.createIndex("messages_sender").on("messages").columns(["sender_id", "id"]).execute();
  await db.schema.createIndex("messages_realm_date").on("messages").columns(["realm_id", "date_sent"]).execute();

  // Per-user message state with Zulip's flag bitmask (src/models/messageFlags.ts).
  await db.schema
    .createTable("user_messages")
    .addColumn("user_id", d.bigint, (c) => c.notNull().references("users.id"))
    .addColumn("message_id", d.bigint, (c) => c.notNull().references("messages.id"))
    .addColumn("flags", d.bigint, (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("user_messages_pk", ["user_id", "message_id"])
    .execute();
  await db.schema.createIndex("user_messages_message").on("user_messages").columns(["message_id"]).execute();

  await d
    .addIdColumn(db.schema.createTable("reactions"))
    .addColumn("message_id", d.bigint, (c) => c.notNull().references("messages.id"))
    .addColumn("user_id", d.bigint, (c) => c.notNull().references("users.id"))
    .addColumn("emoji_name", "text", (c) => c.notNull())
    .addColumn("emoji_code", "text", (c) => c.notNull())
    .addColumn("reaction_type", "text", (c) => c.notNull().defaultTo("unicode_emoji"))
    .addUniqueConstraint("reactions_unique", ["message_id", "user_id", "emoji_code", "reaction_type"])
    .execute();

  await d
    .addIdColumn(db.schema.createTable("submessages"))
    .addColumn("message_id", d.bigint, (c) => c.notNull().references("messages.id"))
    .addColumn("sender_id", d.bigint, (c) => c.notNull().references("users.id"))
    .addColumn("msg_type", "text", (c) => c.notNull())
    .addColumn("content", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("submessages_message").on("submessages").columns(["message_id"]).execute();

  await d
    .addIdColumn(db.schema.createTable("attachments"))
    .addColumn("realm_id", d.bigint, (c) => c.notNull().references("realms.id"))
    .addColumn("owner_id", d.bigint, (c) => c.notNull().references("users.id"))
    .addColumn("file_name", "text", (c) => c.notNull())
    .addColumn("path_id", "text", (c) => c.notNull().unique())
    .addColumn("size", d.bigint, (c) => c.notNull())
    .addColumn("content_type", "text")
    .addColumn("create_time", d.bigint, (c) => c.notNull())
    .addColumn(...bool("is_realm_public", 0))
    .addColumn(...bool("is_web_public", 0))
    .execute();
  await db.schema.createIndex("attachments_owner").on("attachments").columns(["owner_id"]).execute();

  await db.schema
    .createTable("attachment_messages")
    .addColumn("attachment_id", d.bigint, (c) => c.notNull().references("attachments.id"))
    .addColumn("message_id", d.bigint, (c) => c.notNull().references("messages.id"))
    .addPrimaryKeyConstraint("attachment_messages_pk", ["attachment_id", "message_id"])
    .execute();
  await db.schema.createIndex("attachment_messages_message").on("attachment_messages").columns(["message_id"]).execute();

  await d
    .addIdColumn(db.schema.createTable("scheduled_messages"))
    .addColumn("realm_id", d.bigint, (c) => c.notNull().references("realms.id"))
    .addColumn("sender_id", d.bigint, (c) => c.notNull().references("users.id"))
    .addColumn("recipient_id", d.bigint, (c) => c.notNull().references("recipients.id"))
    .addColumn("subject", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("content", "text", (c) => c.notNull())
    .addColumn("rendered_content", "text", (c) => c.notNull())
    .addColumn("scheduled_timestamp", d.bigint, (c) => c.notNull())
    .addColumn("read_by_sender", "integer")
    .addColumn("sending_client", "text", (c) => c.notNull().defaultTo("API"))
    .addColumn(...bool("delivered", 0))
    .addColumn("delivered_message_id", d.bigint, (c) => c.references("messages.id"))
    .addColumn(...bool("failed", 0))
    .addColumn("failure_message", "text")
    .execute();
  await db.schema.createIndex("scheduled_messages_due").on("scheduled_messages").columns(["delivered", "failed", "scheduled_timestamp"]).execute();
  await db.schema.createIndex("scheduled_messages_sender").on("scheduled_messages").columns(["sender_id"]).execute();

  await d
    .addIdColumn(db.schema.createTable("user_topics"))
    .addColumn("user_id", d.bigint, (c) => c.notNull().references("users.id"))
    .addColumn("stream_id", d.bigint, (c) => c.notNull().references("streams.id"))
    .addColumn("recipient_id", d.bigint, (c) => c.notNull().references("recipients.id"))
    .addColumn("topic_name", "text", (c) => c.notNull())
    .addColumn("last_updated", d.bigint, (c) => c.notNull())
    .addColumn("visibility_policy", "integer", (c) => c.notNull())
    .execute();
  await sql`create unique index user_topics_unique on user_topics (user_id, stream_id, lower(topic_name))`.execute(db);

  await d
    .addIdColumn(db.schema.createTable("custom_profile_fields"))
    .addColumn("realm_id", d.bigint, (c) => c.notNull().references("realms.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("hint", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("field_type", "integer", (c) => c.notNull())
    .addColumn("field_data", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("order", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn(...bool("display_in_profile_summary", 0))
    .addColumn(...bool("required", 0))
    .addColumn(...bool("editable_by_user", 1))
    .execute();

  await d
    .addIdColumn(db.schema.createTable("custom_profile_field_values"))
    .addColumn("user_id", d.bigint, (c) => c.notNull().references("users.id"))
    .addColumn("field_id", d.bigint, (c) => c.notNull().references("custom_profile_fields.id"))
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("rendered_value", "text")
    .addUniqueConstraint("custom_profile_field_values_unique", ["user_id", "field_id"])
    .execute();

  await db.schema
    .createTable("user_statuses")
    .addColumn("user_id", d.bigint, (c) => c.primaryKey().references("users.id"))
    .addColumn("status_text", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("emoji_name", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("emoji_code", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("reaction_type", "text", (c) => c.notNull().defaultTo("unicode_emoji"))
    .addColumn("timestamp", d.bigint, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("user_presences")
    .addColumn("user_id", d.bigint, (c) => c.primaryKey().references("users.id"))
    .addColumn("realm_id", d.bigint, (c) => c.notNull().references("realms.id"))
    .addColumn("last_connected_time", d.bigint)
    .addColumn("last_active_time", d.bigint)
    .execute();

  await db.schema
    .createTable("muted_users")
    .addColumn("user_id", d.bigint, (c) => c.notNull().references("users.id"))
    .addColumn("muted_user_id", d.bigint, (c) => c.notNull().references("users.id"))
    .addColumn("date_muted", d.bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint("muted_users_pk", ["user_id", "muted_user_id"])
    .execute();

  await d
    .addIdColumn(db.schema.createTable("alert_words"))
    .addColumn("user_id", d.bigint, (c) => c.notNull().references("users.id"))
    .addColumn("word", "text", (c) => c.notNull())
    .execute();
  await sql`create unique index alert_words_unique on alert_words (user_id, lower(word))`.execute(db);

  await d
    .addIdColumn(db.schema.createTable("drafts"))
    .addColumn("user_id", d.bigint, (c) => c.notNull().references("users.id"))
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("to", "text", (c) => c.notNull())
    .addColumn("topic", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("content", "text", (c) => c.notNull())
    .addColumn("last_edit_time", d.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("drafts_user").on("drafts").columns(["user_id"]).execute();

  await d
    .addIdColumn(db.schema.createTable("realm_emoji"))
    .addColumn("realm_id", d.bigint, (c) => c.notNull().references("realms.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("author_id", d.bigint, (c) => c.references("users.id"))
    .addColumn("file_name", "text")
    .addColumn(...bool("is_animated", 0))
    .addColumn(...bool("deactivated", 0))
    .execute();

  await d
    .addIdColumn(db.schema.createTable("bot_services"))
    .addColumn("bot_id", d.bigint, (c) => c.notNull().references("users.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("base_url", "text", (c) => c.notNull())
    .addColumn("token", "text", (c) => c.notNull())
    .addColumn("interface", "integer", (c) => c.notNull().defaultTo(1))
    .execute();

  await d
    .addIdColumn(db.schema.createTable("push_devices"))
    .addColumn("user_id", d.bigint, (c) => c.notNull().references("users.id"))
    // 1 = APNs, 2 = FCM
    .addColumn("kind", "integer", (c) => c.notNull())
    .addColumn("token", "text", (c) => c.notNull())
    .addColumn("ios_app_id", "text")
    .addColumn("date_created", d.bigint, (c) => c.notNull())
    .addUniqueConstraint("push_devices_unique", ["user_id", "kind", "token"])
    .execute();

  // Durable background work (outbox pattern): written in the transaction that causes it.
  await d
    .addIdColumn(db.schema.createTable("jobs"))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("run_at", d.bigint, (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("max_attempts", "integer", (c) => c.notNull().defaultTo(5))
    // pending | running | done | failed
    .addColumn("status", "text", (c) => c.notNull().defaultTo("pending"))
    .addColumn("locked_until", d.bigint)
    .addColumn("last_error", "text")
    .addColumn("created_at", d.bigint, (c) => c.notNull())
    .addColumn("finished_at", d.bigint)
    .execute();
  await db.schema.createIndex("jobs_due").on("jobs").columns(["status", "run_at"]).execute();

  // One-time confirmation links (email change, ...).
  await d
    .addIdColumn(db.schema.createTable("confirmations"))
    .addColumn("realm_id", d.bigint, (c) => c.notNull().references("realms.id"))
    .addColumn("user_id", d.bigint, (c) => c.references("users.id"))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("confirmation_key", "text", (c) => c.notNull().unique())
    .addColumn("data", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("created_at", d.bigint, (c) => c.notNull())
    .addColumn("expires_at", d.bigint, (c) => c.notNull())
    .addColumn("used_at", d.bigint)
    .execute();

  // Web-client sessions (/json/*): cookie value is the key.
  await db.schema
    .createTable("sessions")
    .addColumn("session_key", "text", (c) => c.primaryKey())
    .addColumn("user_id", d.bigint, (c) => c.notNull().references("users.id"))
    .addColumn("csrf_token", "text", (c) => c.notNull())
    .addColumn("created_at", d.bigint, (c) => c.notNull())
    .addColumn("expires_at", d.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("sessions_user").on("sessions").columns(["user_id"]).execute();

  // An audit trail of changes to realms, users, channels and groups (Zulip's RealmAuditLog).
  await d
    .addIdColumn(db.schema.createTable("audit_log"))
    .addColumn("realm_id", d.bigint, (c) => c.notNull().references("realms.id"))
    .addColumn("acting_user_id", d.bigint)
    .addColumn("modified_user_id", d.bigint)
    .addColumn("modified_stream_id", d.bigint)
    .addColumn("modified_group_id", d.bigint)
    .addColumn("event_type", "text", (c) => c.notNull())
    .addColumn("event_time", d.bigint, (c) => c.notNull())
    .addColumn("extra_data", "text", (c) => c.notNull().defaultTo("{}"))
    .execute();
}
