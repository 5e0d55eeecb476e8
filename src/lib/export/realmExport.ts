import { copyFile, mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { createWriteStream } from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import type { BlobStorage } from "../../blobs/storage.js";
import type { Executor } from "../../db/tx.js";
import { appliedMigrations } from "../../db/migrate.js";
import { ExportType, type ExportTypeCode } from "../../models/realmExport.js";
import { userSettings } from "../../models/userSettings.js";
import { PARLEY_VERSION, ZULIP_VERSION } from "../../models/version.js";
import { exportReadStore as read } from "../../store/exportReads.js";
import { avatarBlobKey, realmIconBlobKey } from "../avatarFiles.js";
import { emojiFilePath } from "../emojiFiles.js";
import { writeRecordsFile, writeTableFile } from "./jsonFiles.js";
import { selectMessageIds } from "./messageSelection.js";
import * as rows from "./tableRows.js";
import { lazy } from "../../util/lazy.js";

/** Loaded when an export is written: a server that never exports never holds it. */
const loadTar = lazy(() => import("tar"));

/**
 * An organization's data export in the layout of Zulip's `manage.py export` (zerver/lib/export.py),
 * as a .tar.gz whose one directory holds:
 *   realm.json            the organization's tables, keyed by Zulip's table names
 *   messages-000001.json  zerver_message + zerver_usermessage, MESSAGE_CHUNK messages per file
 *   attachment.json       zerver_attachment: the uploads the exported messages link
 *   analytics.json, migration_status.json, stats.json
 *   uploads/ avatars/ emoji/ realm_icons/   the files, each folder with its records.json
 * Which messages: a public export has the public channels' only; a full export with consent adds
 * what the users who allow it (allow_private_data_export) could read; a full export without
 * consent (the command line's) has them all (./messageSelection.ts).
 * Messages are read and written a chunk at a time; only their ids are held for the whole run.
 */
const MESSAGE_CHUNK = 1000;

export interface ExportSources {
  q: Executor;
  blobs: BlobStorage;
  dataDir: string;
}

export type ExportStats = Record<string, Record<string, number> | number>;

/** Writes the export of `realmId` to `tarballPath`; temporary files go under `workDir`. */
export async function writeRealmExport(src: ExportSources, realmId: number, type: ExportTypeCode, tarballPath: string, workDir: string): Promise<ExportStats> {
  await mkdir(workDir, { recursive: true });
  const staging = await mkdtemp(path.join(workDir, "zulip-export-"));
  try {
    const stats = await writeExportDirectory(src, realmId, type, staging);
    await (await loadTar()).create({ gzip: true, file: tarballPath, cwd: workDir, portable: true }, [path.basename(staging)]);
    return stats;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

async function writeExportDirectory(src: ExportSources, realmId: number, type: ExportTypeCode, dir: string): Promise<ExportStats> {
  const { q } = src;
  const realm = await read.realm(q, realmId);
  const users = await read.users(q, realmId);
  const streams = await read.streams(q, realmId);
  const groups = await read.directMessageGroups(q, realmId);
  const userGroups = await read.userGroups(q, realmId);
  const consented = type === ExportType.FULL_WITH_CONSENT ? consentedUserIds(users) : new Set<number>();
  const subscriptions = await read.subscriptions(q, realmId);

  const selection = await selectMessageIds(q, { realmId, type, users, streams, groups, subscriptions, consented, systemBots: await read.systemBots(q) });
  const clientNames = await read.sendingClients(q, realmId);
  const clientIds = new Map(clientNames.map((name, i) => [name, i + 1]));
  const stats: ExportStats = {};

  // messages-NNNNNN.json, and what the messages link: their reactions and attachments.
  const exportedUserIds = new Set(users.filter((u) => u.is_mirror_dummy === 0).map((u) => u.id));
  const usermessageReaders = type === ExportType.FULL_WITH_CONSENT ? consented : exportedUserIds;
  const attachmentMessages = new Map<number, number[]>();
  let userMessageId = 0;
  for (let i = 0, file = 1; i < selection.messageIds.length; i += MESSAGE_CHUNK, file++) {
    const chunk = selection.messageIds.slice(i, i + MESSAGE_CHUNK);
    const messages = await read.messages(q, chunk);
    const userMessages = (await read.userMessages(q, chunk)).filter((um) => usermessageReaders.has(um.user_id));
    const name = `messages-${String(file).padStart(6, "0")}`;
    stats[name] = await writeTableFile(path.join(dir, `${name}.json`), [
      ["zerver_message", messages.map((m) => rows.messageRow(m, clientIds))],
      ["zerver_usermessage", userMessages.map((um) => rows.userMessageRow(um, ++userMessageId))],
    ]);
    for (const link of await read.attachmentLinks(q, chunk)) {
      const list = attachmentMessages.get(link.attachment_id) ?? [];
      list.push(link.message_id);
      attachmentMessages.set(link.attachment_id, list);
    }
  }

  // realm.json
  const systemGroupIds = new Map(userGroups.filter((g) => g.is_system_group === 1 && g.name !== null).map((g) => [g.name!, g.id]));
  const recipients = await read.recipients(
    q,
    [...users.map((u) => u.recipient_id), ...streams.map((s) => s.recipient_id), ...groups.map((g) => g.recipient_id)].filter(
      (id): id is number => id !== null,
    ),
  );
  const scheduledSenders = type === ExportType.PUBLIC ? [] : type === ExportType.FULL_WITH_CONSENT ? [...consented] : users.map((u) => u.id);
  const scheduled = await read.scheduledMessages(q, realmId, scheduledSenders);
  const messageIds = selection.messageIds;
  async function* reactions() {
    for (let i = 0; i < messageIds.length; i += MESSAGE_CHUNK) {
      for (const r of await read.reactions(q, messageIds.slice(i, i + MESSAGE_CHUNK))) yield rows.reactionRow(r);
    }
  }
  stats.realm = await writeTableFile(path.join(dir, "realm.json"), [
    ["zerver_realm", [rows.realmRow(realm, systemGroupIds)]],
    ["zerver_realmauthenticationmethod", []],
    [
      "zerver_presencesequence",
      (await read.presenceSequences(q, realmId)).map((p) => ({ id: p.realm_id, realm: p.realm_id, last_update_id: p.last_update_id })),
    ],
    ["zerver_scheduledmessage", scheduled.map((m) => rows.scheduledMessageRow(m, clientIds))],
    ["zerver_defaultstream", (await read.defaultStreams(q, realmId)).map((d, i) => ({ id: i + 1, realm: d.realm_id, stream: d.stream_id }))],
    ["zerver_customprofilefield", (await read.customProfileFields(q, realmId)).map(rows.customProfileFieldRow)],
    ["zerver_realmauditlog", (await read.auditLog(q, realmId)).map(rows.auditLogRow)],
    ["zerver_realmemoji", (await read.realmEmoji(q, realmId)).map(rows.realmEmojiRow)],
    ["zerver_realmdomain", []],
    ["zerver_realmexport", (await read.realmExports(q, realmId)).map(rows.realmExportRow)],
    ["zerver_realmfilter", (await read.linkifiers(q, realmId)).map(rows.realmFilterRow)],
    ["zerver_realmplayground", (await read.playgrounds(q, realmId)).map(rows.realmPlaygroundRow)],
    ["zerver_client", clientNames.map((name, i) => ({ id: i + 1, name }))],
    ["zerver_realmuserdefault", [rows.realmUserDefaultRow(realm)]],
    ["zerver_onboardingusermessage", []],
    ["zerver_userprofile", users.filter((u) => u.is_mirror_dummy === 0).map(rows.userProfileRow)],
    ["zerver_userprofile_mirrordummy", users.filter((u) => u.is_mirror_dummy === 1).map(rows.userProfileRow)],
    ["zerver_userprofile_crossrealm", selection.systemBots.map((b) => ({ email: b.email, id: b.id, recipient_id: b.recipient_id }))],
    ["zerver_usergroup", userGroups.map(rows.userGroupRow)],
    ["zerver_namedusergroup", userGroups.filter((g) => g.named === 1).map(rows.namedUserGroupRow)],
    ["zerver_usergroupmembership", (await read.userGroupMembers(q, realmId)).map((m, i) => ({ id: i + 1, user_group: m.group_id, user_profile: m.user_id }))],
    [
      "zerver_groupgroupmembership",
      (await read.userGroupSubgroups(q, realmId)).map((m, i) => ({ id: i + 1, supergroup: m.supergroup_id, subgroup: m.subgroup_id })),
    ],
    ["zerver_service", (await read.botServices(q, realmId)).map(rows.serviceRow)],
    ["zerver_botstoragedata", (await read.botStorage(q, realmId)).map(rows.botStorageRow)],
    ["zerver_botconfigdata", []],
    ["zerver_stream", streams.map(rows.streamRow)],
    ["zerver_huddle", groups.map(rows.huddleRow)],
    ["zerver_recipient", recipients.map(rows.recipientRow)],
    ["zerver_subscription", subscriptionRows(users, groups, subscriptions)],
    ["zerver_alertword", (await read.alertWords(q, realmId)).map((a) => rows.alertWordRow(a, realmId))],
    ["zerver_customprofilefieldvalue", (await read.customProfileFieldValues(q, realmId)).map(rows.customProfileFieldValueRow)],
    ["zerver_muteduser", (await read.mutedUsers(q, realmId)).map((m, i) => rows.mutedUserRow(m, i + 1))],
    ["zerver_onboardingstep", []],
    ["zerver_savedsnippet", (await read.savedSnippets(q, realmId)).map(rows.savedSnippetRow)],
    ["zerver_useractivity", []],
    ["zerver_useractivityinterval", []],
    ["zerver_userpresence", (await read.presences(q, realmId)).map(rows.userPresenceRow)],
    ["zerver_userstatus", (await read.userStatuses(q, realmId)).map(rows.userStatusRow)],
    ["zerver_usertopic", (await read.userTopics(q, realmId)).map(rows.userTopicRow)],
    ["zerver_reaction", reactions()],
  ]);

  // attachment.json and uploads/
  const attachments = await read.attachments(q, realmId, [...attachmentMessages.keys()]);
  stats.attachment = await writeTableFile(path.join(dir, "attachment.json"), [
    [
      "zerver_attachment",
      attachments.map((a) =>
        rows.attachmentRow(
          a,
          (attachmentMessages.get(a.id) ?? []).sort((x, y) => x - y),
          [],
        ),
      ),
    ],
  ]);
  const owners = new Map(users.map((u) => [u.id, u]));
  const uploadRecords: rows.Row[] = [];
  for (const a of attachments) {
    const blob = await src.blobs.get(a.path_id);
    if (!blob) continue;
    const target = path.join(dir, "uploads", a.path_id);
    await mkdir(path.dirname(target), { recursive: true });
    await pipeline(blob.body, createWriteStream(target, { flags: "wx" }));
    uploadRecords.push({
      realm_id: a.realm_id,
      user_profile_id: a.owner_id,
      user_profile_email: owners.get(a.owner_id)?.email ?? null,
      s3_path: a.path_id,
      path: a.path_id,
      size: blob.size,
      last_modified: a.create_time,
      content_type: a.content_type,
    });
  }
  stats.uploads_records = await writeRecordsFile(path.join(dir, "uploads"), uploadRecords);

  // emoji/
  const emojiRecords: rows.Row[] = [];
  for (const e of await read.realmEmoji(q, realmId)) {
    const source = e.file_name === null ? undefined : emojiFilePath(src.dataDir, realmId, e.file_name);
    if (!source || !(await stat(source).catch(() => null))) continue;
    const emojiPath = `${realmId}/emoji/images/${e.file_name}`;
    await mkdir(path.join(dir, "emoji", path.dirname(emojiPath)), { recursive: true });
    await copyFile(source, path.join(dir, "emoji", emojiPath));
    emojiRecords.push({
      realm_id: realmId,
      author: e.author_id,
      path: emojiPath,
      s3_path: emojiPath,
      file_name: e.file_name,
      name: e.name,
      deactivated: e.deactivated === 1,
    });
  }
  stats.emoji_records = await writeRecordsFile(path.join(dir, "emoji"), emojiRecords);
  // avatars/ and realm_icons/: uploaded images (avatar_source / icon_source "U"), in Zulip's layout.
  const copyBlob = async (key: string, target: string): Promise<number | undefined> => {
    const blob = await src.blobs.get(key);
    if (!blob) return undefined;
    await mkdir(path.dirname(target), { recursive: true });
    await pipeline(blob.body, createWriteStream(target, { flags: "wx" }));
    return blob.size;
  };
  const avatarRecords: rows.Row[] = [];
  for (const user of users.filter((u) => u.avatar_source === "U")) {
    for (const medium of [false, true]) {
      const file = `${realmId}/${user.id}${medium ? "-medium" : ""}.png`;
      const size = await copyBlob(avatarBlobKey(realmId, user.id, medium), path.join(dir, "avatars", file));
      if (size === undefined) continue;
      avatarRecords.push({
        realm_id: realmId,
        user_profile_id: user.id,
        user_profile_email: user.email,
        path: file,
        s3_path: file,
        size,
        content_type: "image/png",
      });
    }
  }
  stats.avatars_records = await writeRecordsFile(path.join(dir, "avatars"), avatarRecords);
  const iconRecords: rows.Row[] = [];
  if (realm.icon_source === "U") {
    const file = `${realmId}/realm/icon.png`;
    const size = await copyBlob(realmIconBlobKey(realmId), path.join(dir, "realm_icons", file));
    if (size !== undefined) iconRecords.push({ realm_id: realmId, path: file, s3_path: file, size, content_type: "image/png" });
  }
  stats.realm_icons_records = await writeRecordsFile(path.join(dir, "realm_icons"), iconRecords);

  stats.analytics = await writeTableFile(path.join(dir, "analytics.json"), [
    ["analytics_realmcount", []],
    ["analytics_usercount", []],
    ["analytics_streamcount", []],
  ]);
  const migrationStatus = { zulip_version: ZULIP_VERSION, parley_version: PARLEY_VERSION, parley_migrations: await appliedMigrations(q) };
  await writeJsonFile(path.join(dir, "migration_status.json"), migrationStatus);
  await writeJsonFile(path.join(dir, "stats.json"), stats);
  return stats;
}

async function writeJsonFile(file: string, value: unknown): Promise<void> {
  await writeFile(file, `${JSON.stringify(value, null, 2)}\n`, { flag: "wx" });
}

/** Zulip's get_consented_user_ids: active humans who allow administrators to export their private data. */
export function consentedUserIds(users: ReadonlyArray<{ id: number; is_active: number; is_bot: number; settings: string }>): Set<number> {
  return new Set(users.filter((u) => u.is_active === 1 && u.is_bot === 0 && userSettings(u).allow_private_data_export).map((u) => u.id));
}

/**
 * zerver_subscription: Parley's channel subscriptions, plus the ones Zulip keeps and Parley
 * implies — each user's to their own direct messages and each member's to a group's — with
 * ids after the real ones.
 */
function subscriptionRows(
  users: ReadonlyArray<{ id: number; is_active: number; recipient_id: number | null }>,
  groups: ReadonlyArray<{ member_key: string; recipient_id: number | null }>,
  subscriptions: Parameters<typeof rows.subscriptionRow>[0][],
): rows.Row[] {
  const result = subscriptions.map(rows.subscriptionRow).sort((a, b) => (a.id as number) - (b.id as number));
  let nextId = subscriptions.reduce((max, s) => Math.max(max, s.id), 0);
  const active = new Map(users.map((u) => [u.id, u.is_active === 1]));
  for (const u of users) if (u.recipient_id !== null) result.push(rows.impliedSubscriptionRow(++nextId, u.id, u.recipient_id, u.is_active === 1));
  for (const g of groups) {
    if (g.recipient_id === null) continue;
    for (const member of g.member_key.split(",").map(Number)) {
      if (active.has(member)) result.push(rows.impliedSubscriptionRow(++nextId, member, g.recipient_id, active.get(member)!));
    }
  }
  return result;
}
