import { copyFile, mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { type AppContext, transaction } from "../../appContext.js";
import type { Tx } from "../../db/tx.js";
import { emojiFilePath } from "../../lib/emojiFiles.js";
import { avatarBlobKey, realmIconBlobKey } from "../../lib/avatarFiles.js";
import { type ZulipArchive, archiveBatches, messageFilePath } from "../../lib/import/zulipArchive.js";
import { type ImportRow, importStore as store } from "../../store/imports.js";
import { messageSearchStore } from "../../store/messageSearch.js";
import { streamStore } from "../../store/streams.js";
import { nowSeconds } from "../../util/time.js";
import { ensureSystemBots } from "../onboarding.js";
import { IdMap, type IdMapState, OFFSET_TABLES, type OffsetTable } from "./idMap.js";
import * as rows from "./zulipRows.js";
import { SYSTEM_BOT_REALM } from "../../models/systemBots.js";
import { type ImportProgress, silentProgress } from "./progress.js";
import { batchCounter, resumeOrStart } from "./run.js";
import { defined } from "../../util/defined.js";

/**
 * `parley import zulip`: an organization from an export in the layout of Zulip's `manage.py
 * export` (zerver/lib/import_realm.py in spirit) as a NEW organization of this server. Steps, each
 * committed with the import's state (import_runs) in the same transaction, so an interrupted
 * import continues where it stopped without duplicating anything:
 *   1. base: the organization (deactivated: invisible until the end) and every table of
 *      realm.json but reactions; the id ranges of the export's rows are reserved (./idMap.ts);
 *   2. messages and their user messages (flags), `batchSize` messages a transaction;
 *   3. reactions, by batches; 4. uploads (stored in the configured storage) with their
 *      attachments, by batches; 5. custom emoji files; 6. the organization is activated.
 */
export interface ImportOptions {
  /** The new organization's string id (default: the export's). */
  stringId?: string;
  batchSize?: number;
  progress?: ImportProgress;
  /** Test hook: throw after this many committed batches (to test resuming). */
  failAfterBatches?: number;
}

export interface ImportReport {
  realmId: number;
  stringId: string;
  resumed: boolean;
  imported: Record<string, number>;
  skipped: Array<{ what: string; count: number; why: string }>;
}

interface RunState extends IdMapState {
  base: boolean;
  /** Where the messages stand: the file, its table (0 messages, 1 user messages) and row. */
  messages: { file: number; table?: 0 | 1; row: number };
  reactions: number;
  scheduled?: boolean;
  attachments: number;
  avatars?: boolean;
  emoji: boolean;
  counts: Record<string, number>;
}

/** Tables of an export that are not imported, and why (the final report lists the non-empty ones). */
const SKIPPED_TABLES: Record<string, string> = {
  zerver_realmauditlog: "the audit log starts afresh",
  zerver_userpresence: "presence starts afresh",
  zerver_presencesequence: "presence starts afresh",
  zerver_realmexport: "the old server's exports stay there",
  zerver_userstatus: "statuses are not carried over",
  zerver_useractivity: "activity statistics are not kept",
  zerver_useractivityinterval: "activity statistics are not kept",
  zerver_realmdomain: "not supported by Parley",
  zerver_realmauthenticationmethod: "not supported by Parley",
  zerver_botconfigdata: "not supported by Parley",
  zerver_onboardingstep: "onboarding starts afresh",
  zerver_onboardingusermessage: "onboarding starts afresh",
};

export class ImportError extends Error {}

/** User messages per transaction, per message of --batch-size (a message has a few recipients). */
const USER_MESSAGES_PER_MESSAGE = 4;

const realmFile = (archive: ZulipArchive) => path.join(archive.root, "realm.json");

export async function importZulipArchive(ctx: AppContext, archive: ZulipArchive, options: ImportOptions = {}): Promise<ImportReport> {
  const batchSize = options.batchSize ?? 5000;
  const progress = options.progress ?? silentProgress;
  const realmRowIn = defined(archive.realm.zerver_realm[0], "the organization's row (readZulipArchive checked it)");
  const stringId = options.stringId ?? String(realmRowIn.string_id ?? "");
  const source = `zulip:${String(realmRowIn.string_id)}:${String(realmRowIn.date_created)}:${archive.messageCount}`;
  const committed = batchCounter(options.failAfterBatches);
  const { state, realmId, resumed } = await resumeOrStart<RunState>(ctx, {
    stringId,
    source,
    fail: (message) => new ImportError(message),
    start: (tx) => importBase(tx, archive, stringId, source),
    progress,
    startedNote: (s) => `Imported the organization's tables (${s.counts.users ?? 0} users, ${s.counts.streams ?? 0} channels)`,
  });
  const m = new IdMap(state);
  m.setLegacyUploadPaths(archive.legacyUploadPaths);
  const save = (tx: Tx) => store.saveRunState(tx.q, realmId, JSON.stringify(state), nowSeconds());

  // Messages, then their user messages (flags), file by file, a batch a transaction; a file is
  // read (streamed when large) once per table, so the tables may come in either order.
  const clients = new Map<number, string>((archive.realm.zerver_client ?? []).map((c) => [c.id as number, String(c.name)]));
  const at = state.messages;
  progress.advance("messages", state.counts.messages ?? 0, archive.messageCount);
  for (let file = at.file; file < archive.messageFiles.length; file++) {
    const filePath = messageFilePath(archive, file);
    for (const phase of [0, 1] as const) {
      const resuming = file === at.file && phase === (at.table ?? 0);
      if (file === at.file && phase < (at.table ?? 0)) continue;
      let row = resuming ? at.row : 0;
      if (phase === 0) {
        for await (const batch of archiveBatches(filePath, "zerver_message", batchSize, row)) {
          await transaction(ctx, async (tx) => {
            const messages = batch.map((msg) => rows.messageRow(m, msg, clients));
            await store.insertRows(tx.q, "messages", messages);
            await messageSearchStore.index(tx.q, messages as never);
            // The channels' daily counts (stream_weekly_traffic, is_recently_active).
            await streamStore.countChannelMessages(
              tx.q,
              messages
                .filter((msg) => msg.is_channel_message)
                .map((msg) => ({ recipientId: msg.recipient_id as number, id: msg.id as number, dateSent: msg.date_sent as number })),
            );
            row += batch.length;
            state.messages = { file, table: 0, row };
            state.counts.messages = (state.counts.messages ?? 0) + batch.length;
            await save(tx);
          });
          progress.advance("messages", state.counts.messages ?? 0, archive.messageCount);
          committed();
        }
      } else {
        for await (const batch of archiveBatches(filePath, "zerver_usermessage", batchSize * USER_MESSAGES_PER_MESSAGE, row)) {
          await transaction(ctx, async (tx) => {
            await store.insertRows(
              tx.q,
              "user_messages",
              batch.map((um) => rows.userMessageRow(m, um)),
            );
            row += batch.length;
            state.messages = { file, table: 1, row };
            state.counts.user_messages = (state.counts.user_messages ?? 0) + batch.length;
            await save(tx);
          });
          committed();
        }
      }
    }
    state.messages = { file: file + 1, table: 0, row: 0 };
  }

  // Reactions (realm.json's zerver_reaction, streamed when large).
  const reactionTotal = archive.tableCounts.zerver_reaction ?? 0;
  if (state.reactions < reactionTotal) {
    progress.advance("reactions", state.reactions, reactionTotal);
    for await (const batch of archiveBatches(realmFile(archive), "zerver_reaction", batchSize, state.reactions)) {
      await transaction(ctx, async (tx) => {
        await store.insertRows(
          tx.q,
          "reactions",
          batch.map((r) => rows.reactionRow(m, r)),
        );
        state.reactions += batch.length;
        state.counts.reactions = state.reactions;
        await save(tx);
      });
      progress.advance("reactions", state.reactions, reactionTotal);
      committed();
    }
  }

  // Scheduled messages (after the messages: a delivered one names the message it became).
  if (!state.scheduled) {
    await transaction(ctx, async (tx) => {
      const list = archive.realm.zerver_scheduledmessage ?? [];
      const kept = list.filter((s) => rows.isSendLater(s));
      await store.insertRows(
        tx.q,
        "scheduled_messages",
        kept.map((s) => rows.scheduledMessageRow(m, s, clients)),
      );
      state.scheduled = true;
      state.counts.scheduled_messages = kept.length;
      state.counts.reminders_skipped = list.length - kept.length;
      await save(tx);
    });
  }

  // Uploads and their attachments. A file is stored before its row commits; storing it again
  // after an interruption overwrites it.
  const uploadFiles = new Map(archive.uploadRecords.map((r) => [String(r.s3_path ?? r.path), path.join(archive.root, "uploads", String(r.path))]));
  if (archive.attachmentFile && state.attachments < archive.attachmentCount) {
    progress.advance("uploads", state.attachments, archive.attachmentCount);
    for await (const batch of archiveBatches(archive.attachmentFile, "zerver_attachment", batchSize, state.attachments)) {
      const withFiles = batch.filter((a) => uploadFiles.has(String(a.path_id)));
      for (const a of withFiles) await ctx.blobs.putBytes(m.uploadPath(String(a.path_id)), await readFile(uploadFiles.get(String(a.path_id))!));
      await transaction(ctx, async (tx) => {
        await store.insertRows(
          tx.q,
          "attachments",
          withFiles.map((a) => rows.attachmentRow(m, a)),
        );
        const links = withFiles.flatMap((a) =>
          ((a.messages ?? []) as number[]).map((id) => ({ attachment_id: m.id("attachments", a.id), message_id: m.message(id) })),
        );
        await store.insertRows(tx.q, "attachment_messages", links);
        state.attachments += batch.length;
        state.counts.attachments = (state.counts.attachments ?? 0) + withFiles.length;
        state.counts.attachments_without_file = (state.counts.attachments_without_file ?? 0) + batch.length - withFiles.length;
        await save(tx);
      });
      progress.advance("uploads", state.attachments, archive.attachmentCount);
      committed();
    }
  }

  // Uploaded avatars: each user's resized image (<hash>.png in Zulip's layout) becomes theirs here.
  if (!state.avatars) {
    const avatars = rows.avatarFiles(archive.avatarRecords);
    let stored = 0;
    const changes: Array<[number, number]> = [];
    for (const [oldUserId, file] of avatars) {
      const userId = m.user(oldUserId);
      await ctx.blobs.putBytes(avatarBlobKey(realmId, userId), await readFile(path.join(archive.root, "avatars", file)));
      changes.push([userId, oldUserId]);
      stored += 1;
    }
    const uploadedAvatar = new Set((archive.realm.zerver_userprofile ?? []).filter((u) => u.avatar_source === "U").map((u) => Number(u.id)));
    await transaction(ctx, async (tx) => {
      for (const [userId, oldUserId] of changes) {
        if (uploadedAvatar.has(oldUserId)) await store.updateById(tx.q, "users", userId, { avatar_source: "U" });
      }
      state.avatars = true;
      state.counts.avatars = stored;
      state.counts.avatars_without_file = [...uploadedAvatar].filter((id) => !avatars.has(id)).length;
      // The organization's uploaded icon (realm_icons/<realm>/realm/icon.png), when it has one.
      const icon = archive.realmIconRecords.find((r) => typeof r.path === "string" && r.path.endsWith("/realm/icon.png"));
      if (icon && realmRowIn.icon_source === "U") {
        await ctx.blobs.putBytes(realmIconBlobKey(realmId), await readFile(path.join(archive.root, "realm_icons", String(icon.path))));
        await store.updateById(tx.q, "realms", realmId, { icon_source: "U" });
        state.counts.realm_icon = 1;
      }
      await save(tx);
    });
  }

  // Custom emoji files; then the organization becomes visible.
  if (!state.emoji) {
    let copied = 0;
    const fileNames = new Map((archive.realm.zerver_realmemoji ?? []).map((e) => [e.file_name, rows.emojiFileName(m, e)]));
    for (const r of archive.emojiRecords) {
      const name = fileNames.get(r.file_name);
      const target = typeof name === "string" ? emojiFilePath(ctx.config.dataDir, realmId, name) : undefined;
      if (!target) continue;
      await mkdir(path.dirname(target), { recursive: true });
      await copyFile(path.join(archive.root, "emoji", String(r.path)), target);
      copied += 1;
    }
    state.emoji = true;
    state.counts.emoji_files = copied;
  }
  await transaction(ctx, async (tx) => {
    await store.setRealmDeactivated(tx.q, realmId, realmRowIn.deactivated === true ? 1 : 0);
    await store.finishRun(tx.q, realmId, JSON.stringify(state), nowSeconds());
  });

  const skipped = Object.entries(SKIPPED_TABLES)
    .map(([table, why]) => ({ what: table, count: archive.tableCounts[table] ?? 0, why }))
    .filter((s) => s.count > 0);
  skipped.push({
    what: "passwords and API keys",
    count: state.counts.users ?? 0,
    why: "an export has none: users reset their password; every user and bot has a new API key",
  });
  if (state.counts.attachments_without_file)
    skipped.push({ what: "zerver_attachment", count: state.counts.attachments_without_file, why: "the export lacks the file" });
  if (state.counts.avatars_without_file)
    skipped.push({ what: "avatars", count: state.counts.avatars_without_file, why: "the export lacks the image (Gravatar until changed)" });
  if (state.counts.reminders_skipped)
    skipped.push({ what: "zerver_scheduledmessage", count: state.counts.reminders_skipped, why: "reminders are not supported by Parley" });
  return { realmId, stringId, resumed, imported: state.counts, skipped };
}

/** Step 1, one transaction: the organization, its state row and every table of realm.json but reactions. */
async function importBase(tx: Tx, archive: ZulipArchive, stringId: string, source: string): Promise<{ state: RunState; realmId: number }> {
  const t = archive.realm;
  const q = tx.q;
  await ensureSystemBots(tx);
  const bots = new Map((await store.systemBotsByEmail(q, SYSTEM_BOT_REALM)).map((b) => [b.email, b]));
  const crossUsers: Array<[number, number]> = [];
  const crossRecipients: Array<[number, number]> = [];
  for (const b of t.zerver_userprofile_crossrealm ?? []) {
    const bot = bots.get(String(b.email));
    if (!bot) throw new ImportError(`the export's system bot ${String(b.email)} has no counterpart on this server`);
    crossUsers.push([Number(b.id), bot.id]);
    if (b.recipient_id != null && bot.recipient_id !== null) crossRecipients.push([Number(b.recipient_id), bot.recipient_id]);
  }

  // Offsets: each table's highest id now; the range up to offset + the export's highest id is
  // reserved so rows created meanwhile (the server may run) land above it.
  const offsets = {} as Record<OffsetTable, number>;
  for (const [table, zulipTable] of Object.entries(OFFSET_TABLES) as Array<[OffsetTable, string]>) {
    offsets[table] = await store.maxId(q, table);
    const top = offsets[table] + (archive.maxIds[zulipTable] ?? 0);
    if (top > 0) await store.reserveIds(q, table, top);
  }
  const realmRow = defined(t.zerver_realm[0], "the organization's row (readZulipArchive checked it)");
  const oldRealmId = Number(realmRow.id);
  const provisional = new IdMap({ offsets, oldRealmId, realmId: 0, crossUsers, crossRecipients });
  const realmId = await store.createRealm(q, rows.realmRow(provisional, realmRow, t.zerver_realmuserdefault?.[0], stringId));
  const m = new IdMap({ offsets, oldRealmId, realmId, crossUsers, crossRecipients });
  m.setLegacyUploadPaths(archive.legacyUploadPaths);
  const counts: Record<string, number> = {};
  const insert = async (table: Parameters<typeof store.insertRows>[1], list: ImportRow[]) => {
    await store.insertRows(q, table, list);
    counts[table] = (counts[table] ?? 0) + list.length;
  };

  const users = [...t.zerver_userprofile, ...(t.zerver_userprofile_mirrordummy ?? [])];
  await insert(
    "recipients",
    t.zerver_recipient.map((r) => rows.recipientRow(m, r)),
  );
  await insert(
    "users",
    users.map((u) => rows.userRow(m, u)),
  );
  const named = new Map((t.zerver_namedusergroup ?? []).map((g) => [Number(g.id ?? g.usergroup_ptr), g]));
  await insert(
    "user_groups",
    t.zerver_usergroup.map((g) => rows.userGroupRow(m, g, named.get(Number(g.id)))),
  );
  for (const g of named.values()) await store.updateById(q, "user_groups", m.group(g.id ?? g.usergroup_ptr), rows.userGroupLinks(m, g));
  await insert(
    "streams",
    t.zerver_stream.map((s) => rows.streamRow(m, s)),
  );
  for (const u of users) await store.updateById(q, "users", m.user(u.id), rows.userLinks(m, u));
  // Channel subscriptions only: Parley implies those to one's own and to groups' direct messages.
  const recipientTypes = new Map(t.zerver_recipient.map((r) => [Number(r.id), Number(r.type)]));
  const groupMembers = new Map<number, number[]>();
  for (const s of t.zerver_subscription) {
    if (recipientTypes.get(Number(s.recipient)) !== 3) continue;
    const list = groupMembers.get(Number(s.recipient)) ?? [];
    list.push(Number(s.user_profile));
    groupMembers.set(Number(s.recipient), list);
  }
  await insert(
    "direct_message_groups",
    (t.zerver_huddle ?? t.zerver_directmessagegroup ?? []).map((h) => rows.directMessageGroupRow(m, h, groupMembers.get(Number(h.recipient)) ?? [])),
  );

  await insert(
    "subscriptions",
    t.zerver_subscription.filter((s) => recipientTypes.get(Number(s.recipient)) === 2).map((s) => rows.subscriptionRow(m, s)),
  );
  await insert(
    "user_group_members",
    (t.zerver_usergroupmembership ?? []).map((g) => ({ group_id: m.group(g.user_group), user_id: m.user(g.user_profile) })),
  );
  await insert(
    "user_group_subgroups",
    (t.zerver_groupgroupmembership ?? []).map((g) => ({ supergroup_id: m.group(g.supergroup), subgroup_id: m.group(g.subgroup) })),
  );
  await insert(
    "default_streams",
    (t.zerver_defaultstream ?? []).map((d) => ({ realm_id: realmId, stream_id: m.stream(d.stream) })),
  );
  await insert(
    "custom_profile_fields",
    (t.zerver_customprofilefield ?? []).map((f) => ({
      id: m.id("custom_profile_fields", f.id),
      realm_id: realmId,
      name: f.name,
      hint: f.hint ?? "",
      field_type: f.field_type,
      field_data: f.field_data ?? "",
      order: f.order ?? 0,
      display_in_profile_summary: f.display_in_profile_summary ? 1 : 0,
      required: f.required ? 1 : 0,
      editable_by_user: f.editable_by_user === false ? 0 : 1,
    })),
  );
  await insert(
    "custom_profile_field_values",
    (t.zerver_customprofilefieldvalue ?? []).map((v) => ({
      id: m.id("custom_profile_field_values", v.id),
      user_id: m.user(v.user_profile),
      field_id: m.id("custom_profile_fields", v.field),
      value: v.value,
      rendered_value: v.rendered_value ?? null,
    })),
  );
  await insert(
    "realm_emoji",
    (t.zerver_realmemoji ?? []).map((e) => ({
      id: m.id("realm_emoji", e.id),
      realm_id: realmId,
      name: e.name,
      author_id: m.userOrNull(e.author),
      file_name: rows.emojiFileName(m, e),
      is_animated: e.is_animated ? 1 : 0,
      deactivated: e.deactivated ? 1 : 0,
    })),
  );
  await insert(
    "user_topics",
    (t.zerver_usertopic ?? []).map((u) => ({
      id: m.id("user_topics", u.id),
      user_id: m.user(u.user_profile),
      stream_id: m.stream(u.stream),
      recipient_id: m.recipient(u.recipient),
      topic_name: u.topic_name,
      last_updated: Math.floor(Number(u.last_updated) || 0),
      visibility_policy: u.visibility_policy,
    })),
  );
  await insert(
    "muted_users",
    (t.zerver_muteduser ?? []).map((x) => ({
      user_id: m.user(x.user_profile),
      muted_user_id: m.user(x.muted_user),
      date_muted: Math.floor(Number(x.date_muted) || 0),
    })),
  );
  await insert(
    "alert_words",
    (t.zerver_alertword ?? []).map((a) => ({ id: m.id("alert_words", a.id), user_id: m.user(a.user_profile), word: a.word })),
  );
  await insert(
    "realm_linkifiers",
    (t.zerver_realmfilter ?? []).map((f) => ({ realm_id: realmId, pattern: f.pattern, url_template: f.url_template, order: f.order ?? 0 })),
  );
  await insert(
    "realm_playgrounds",
    (t.zerver_realmplayground ?? []).map((p) => ({ realm_id: realmId, name: p.name, pygments_language: p.pygments_language, url_template: p.url_template })),
  );
  await insert(
    "saved_snippets",
    (t.zerver_savedsnippet ?? []).map((s) => ({
      realm_id: realmId,
      user_id: m.user(s.user_profile),
      title: s.title,
      content: s.content,
      date_created: Math.floor(Number(s.date_created) || 0),
    })),
  );
  await insert(
    "bot_services",
    (t.zerver_service ?? []).map((s) => ({ bot_id: m.user(s.user_profile), name: s.name, base_url: s.base_url, token: s.token, interface: s.interface ?? 1 })),
  );
  await insert(
    "bot_storage",
    (t.zerver_botstoragedata ?? []).map((s) => ({ bot_id: m.user(s.bot_profile), key: s.key, value: s.value })),
  );

  const state: RunState = {
    ...m.state,
    base: true,
    messages: { file: 0, table: 0, row: 0 },
    reactions: 0,
    attachments: 0,
    emoji: false,
    counts,
  };
  await store.createRun(q, realmId, source, JSON.stringify(state), nowSeconds());
  return { state, realmId };
}
