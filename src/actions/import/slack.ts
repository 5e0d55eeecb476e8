import { type AppContext, transaction } from "../../appContext.js";
import type { Realm, User } from "../../db/schema.js";
import type { Tx } from "../../db/tx.js";
import { type SlackArchive, type SlackRow, type SlackUser, readDayFile, readEntry } from "../../lib/import/slackArchive.js";
import type { SlackNames } from "../../lib/import/slackMarkdown.js";
import { type RenderedMessage, renderMessageContents } from "../../lib/messageRendering.js";
import { MAX_STREAM_NAME_LENGTH } from "../../models/limits.js";
import { MessageFlag } from "../../models/messageFlags.js";
import { BotType, Role } from "../../models/roles.js";
import { attachmentStore } from "../../store/attachments.js";
import { directMessageRecipientId, memberKey } from "../../store/directMessageGroups.js";
import { importStore } from "../../store/imports.js";
import { messageSearchStore } from "../../store/messageSearch.js";
import { messageStore } from "../../store/messages.js";
import { realmStore } from "../../store/realms.js";
import { streamStore } from "../../store/streams.js";
import { subscriptionStore } from "../../store/subscriptions.js";
import { userMessageStore } from "../../store/userMessages.js";
import { userStore } from "../../store/users.js";
import { nowSeconds } from "../../util/time.js";
import { doCreateUser } from "../createUser.js";
import { doCreateRealm } from "../realms.js";
import { doCreateStreams } from "../streams.js";
import { type ConvertedMessage, ThreadTopics, convertMessage } from "./slackMessages.js";
import { type ImportProgress, silentProgress } from "./progress.js";
import { batchCounter, resumeOrStart } from "./run.js";
import { at, defined } from "../../util/defined.js";
import { realmUrl } from "../../lib/realms.js";

/**
 * `parley import slack`: a Slack workspace export as a NEW organization (Zulip's Slack importer
 * in spirit). Steps, each committed with the import's state (import_runs) in the same
 * transaction, so an interrupted import continues where it stopped without duplicating anything:
 *   1. base: the organization (deactivated: invisible until the end), its users (bots, owners,
 *      administrators, guests, deactivated accounts), the public and private channels and their
 *      members;
 *   2. messages, day by day in the order they were sent, `batchSize` a transaction, each with
 *      its reactions, files and receivers; threads become topics; direct messages (dms.json,
 *      mpims.json) go to their people, as 1:1 or group conversations;
 *   3. the organization is activated.
 */
export interface SlackImportOptions {
  stringId: string;
  name?: string;
  batchSize?: number;
  progress?: ImportProgress;
  /** Test hook: throw after this many committed batches (to test resuming). */
  failAfterBatches?: number;
}

export interface SlackImportReport {
  realmId: number;
  stringId: string;
  resumed: boolean;
  imported: Record<string, number>;
  skipped: Array<{ what: string; count: number; why: string }>;
}

interface RunState {
  /** Slack user id → [user id, full name]. */
  users: Record<string, [number, string]>;
  /** Slack channel id → [channel id, recipient id, name]. */
  channels: Record<string, [number, number, string]>;
  /** A direct-message conversation's folder → its members' user ids. */
  conversations?: Record<string, number[]>;
  day: number;
  row: number;
  counts: Record<string, number>;
  skipped: Record<string, number>;
}

export class SlackImportError extends Error {}

export async function importSlackArchive(ctx: AppContext, archive: SlackArchive, options: SlackImportOptions): Promise<SlackImportReport> {
  const batchSize = options.batchSize ?? 1000;
  const progress = options.progress ?? silentProgress;
  const { stringId } = options;
  const source = `slack:${archive.users.length}:${archive.channels.length}:${archive.days.length}:${archive.messageCount}`;
  const committed = batchCounter(options.failAfterBatches);
  const { state, realmId, resumed } = await resumeOrStart<RunState>(ctx, {
    stringId,
    source,
    fail: (message) => new SlackImportError(message),
    start: (tx) => importBase(tx, ctx, archive, options, source),
    progress,
    startedNote: (s) =>
      `Imported the workspace's users and channels (${s.counts.users} users, ${s.counts.channels} channels, ${s.counts.private_channels ?? 0} private)`,
  });
  const realm = (await realmStore.getById(ctx.db.kysely, realmId))!;
  const names: SlackNames = {
    user: (id) => {
      const user = state.users[id];
      return user ? { id: user[0], fullName: user[1] } : undefined;
    },
    channel: (id) => state.channels[id]?.[2],
  };
  const known = (id: string) => state.users[id] !== undefined;
  const channelByName = new Map(archive.channels.map((c) => [c.name, c.id]));
  const destinationOf = (folder: string): Destination =>
    channelByName.has(folder)
      ? { kind: "channel", channel: defined(state.channels[channelByName.get(folder)!], `channel ${folder}`) }
      : { kind: "direct", members: state.conversations?.[folder] ?? [] };
  const threads = new ThreadTopics();
  const receivers = await subscriptionStore.subscriberIds(
    ctx.db.kysely,
    Object.values(state.channels).map(([, recipientId]) => recipientId),
  );

  const handled = () => (state.counts.messages ?? 0) + Object.values(state.skipped).reduce((a, b) => a + b, 0);
  progress.advance("messages", handled(), archive.messageCount);
  for (let day = 0; day < archive.days.length; day++) {
    // A day's messages of every channel, in the order they were sent (Zulip's get_messages_iterator).
    const rows: Array<{ message: SlackRow; channel: string }> = [];
    for (const f of at(archive.days, day).files) for (const message of await readDayFile(archive, f.entry)) rows.push({ message, channel: f.channel });
    rows.sort((a, b) => Number(a.message.ts) - Number(b.message.ts));
    const convert = (r: { message: SlackRow }) => convertMessage(r.message, names, known, archive.uploads, realmId, threads);
    if (day < state.day) {
      // Done before an interruption: converted again only so that thread topics number as they did.
      for (const r of rows) convert(r);
      continue;
    }
    const start = day === state.day ? state.row : 0;
    for (const r of rows.slice(0, start)) convert(r);
    for (let i = start; i < rows.length; i += batchSize) {
      const slice = rows.slice(i, i + batchSize);
      const converted = slice.map((r) => ({ to: destinationOf(r.channel), result: convert(r) }));
      const messages = converted.flatMap(({ to, result }) => ("skip" in result ? [] : [{ to, m: result }]));
      for (const { result } of converted) if ("skip" in result) state.skipped[result.skip] = (state.skipped[result.skip] ?? 0) + 1;
      // Files are stored before their rows commit; storing one again after an interruption overwrites it.
      for (const { m } of messages) for (const f of m.files) await ctx.blobs.putBytes(f.pathId, await readEntry(archive, f.entry));
      await transaction(ctx, async (tx) => {
        await writeMessages(tx, realm, state, messages, receivers);
        state.day = day;
        state.row = i + slice.length;
        await importStore.saveRunState(tx.q, realmId, JSON.stringify(state), nowSeconds());
      });
      progress.advance("messages", handled(), archive.messageCount);
      committed();
    }
    state.day = day + 1;
    state.row = 0;
  }

  await transaction(ctx, async (tx) => {
    await importStore.setRealmDeactivated(tx.q, realmId, 0);
    await importStore.finishRun(tx.q, realmId, JSON.stringify(state), nowSeconds());
  });

  const skipped: SlackImportReport["skipped"] = [];
  for (const [why, count] of Object.entries(state.skipped)) skipped.push({ what: "messages", count, why });
  if (state.counts.files_missing)
    skipped.push({ what: "files", count: state.counts.files_missing, why: "the export lacks them (Slack's links cannot be downloaded offline)" });
  if (state.counts.reactions_unknown_emoji)
    skipped.push({
      what: "reactions",
      count: state.counts.reactions_unknown_emoji,
      why: "custom or unknown emoji (Slack's custom emoji are not in its export)",
    });
  skipped.push({ what: "passwords", count: state.counts.users ?? 0, why: "a Slack export has none: users set one with “Forgot password”" });
  skipped.push({ what: "avatars", count: 0, why: "Slack's avatars are not carried over (Gravatar until changed)" });
  const imported = Object.fromEntries(Object.entries(state.counts).filter(([k]) => !["files_missing", "reactions_unknown_emoji"].includes(k)));
  return { realmId, stringId, resumed, imported, skipped };
}

/** A user's role from Slack's flags (Zulip's get_user_role). */
function roleOf(u: SlackUser): number {
  if (u.is_primary_owner === true || u.is_owner === true) return Role.OWNER;
  if (u.is_admin === true) return Role.ADMINISTRATOR;
  if (u.is_restricted === true || u.is_ultra_restricted === true) return Role.GUEST;
  return Role.MEMBER;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);

/** Step 1, one transaction: the organization, its users, channels, members and the state row. */
async function importBase(
  tx: Tx,
  ctx: AppContext,
  archive: SlackArchive,
  options: SlackImportOptions,
  source: string,
): Promise<{ state: RunState; realmId: number }> {
  // Zulip's Slack import writes the realm row itself, not through do_create_realm: read receipts stay off.
  const realm = await doCreateRealm(tx, { string_id: options.stringId, name: options.name ?? options.stringId, enable_read_receipts: false });
  await importStore.setRealmDeactivated(tx.q, realm.id, 1);
  // Zulip: the addresses of users and bots Slack gives none are at the new organization's host.
  const domain = new URL(realmUrl(ctx.config, realm)).hostname;
  const counts: Record<string, number> &
    Record<"users" | "bots" | "deactivated_users" | "channels" | "private_channels" | "subscriptions" | "messages", number> = {
    users: 0,
    bots: 0,
    deactivated_users: 0,
    channels: 0,
    private_channels: 0,
    subscriptions: 0,
    messages: 0,
  };
  const users: RunState["users"] = {};
  const byEmail = new Map<string, User>();
  const created = new Map<string, User>();
  const deactivate: number[] = [];

  // Slack's users; then senders users.json lacks (integration bots), as bots.
  const people: SlackUser[] = [...archive.users, ...[...archive.extraSenders].map(([id, name]): SlackUser => ({ id, name, real_name: name, is_bot: true }))];
  for (const u of people) {
    const profile = (u.profile ?? {}) as SlackRow;
    const isBot = u.is_bot === true || u.is_app_user === true;
    const handle = (str(u.name) ?? u.id).toLowerCase().replace(/[^a-z0-9._-]/g, "-");
    const email = (str(profile.email) ?? (isBot ? `${handle}-bot@${domain}` : `${handle}@${domain}`)).toLowerCase();
    const fullName = (str(profile.real_name) ?? str(u.real_name) ?? str(profile.display_name) ?? str(u.name) ?? u.id).slice(0, 100);
    // Two Slack accounts with one email are one user (Zulip merges them too).
    let user = byEmail.get(email);
    if (!user) {
      user = await doCreateUser(tx, realm, {
        email,
        full_name: fullName,
        password_hash: null,
        role: isBot ? Role.MEMBER : roleOf(u),
        timezone: str(u.tz) ?? "",
        is_bot: isBot,
        bot_type: isBot ? BotType.GENERIC : null,
        channels: { stream_ids: [], include_default_channels: false },
      });
      byEmail.set(email, user);
      counts[isBot ? "bots" : "users"] += 1;
      if (u.deleted === true) deactivate.push(user.id);
    }
    users[u.id] = [user.id, user.full_name];
    if (typeof profile.bot_id === "string" && users[profile.bot_id] === undefined) users[profile.bot_id] = [user.id, user.full_name];
    created.set(u.id, user);
  }

  // Channels with their members: private ones (groups.json) invite-only, their history open to
  // their members as in Slack; the "general" channel is a default channel.
  const channels: RunState["channels"] = {};
  const taken = new Set<string>();
  for (const c of archive.channels) {
    let name = c.name.slice(0, MAX_STREAM_NAME_LENGTH);
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${c.name.slice(0, MAX_STREAM_NAME_LENGTH - 4)}-${n}`;
    taken.add(name.toLowerCase());
    const purpose = c.purpose as SlackRow | undefined;
    const creator = typeof c.creator === "string" ? (created.get(c.creator) ?? null) : null;
    const [newStream] = await doCreateStreams(tx, realm, creator, [
      {
        name,
        description: (str(purpose?.value) ?? "").slice(0, 1024),
        invite_only: c.is_private === true,
        is_web_public: false,
        history_public_to_subscribers: true,
        message_retention_days: null,
        groupSettings: {},
      },
    ]);
    const stream = defined(newStream, `channel ${name}`);
    await streamStore.update(tx.q, stream.id, {
      ...(typeof c.created === "number" ? { date_created: c.created } : {}),
      ...(c.is_archived === true ? { is_archived: 1 } : {}),
    });
    if (c.is_general === true && c.is_private !== true) await streamStore.addDefaultStreams(tx.q, realm.id, [stream.id]);
    const members = new Set((Array.isArray(c.members) ? c.members : []).flatMap((m) => (typeof m === "string" && users[m] ? [users[m][0]] : [])));
    for (const userId of members) await subscriptionStore.subscribeUser(tx.q, userId, [stream.recipient_id]);
    channels[c.id] = [stream.id, stream.recipient_id, stream.name];
    counts[c.is_private === true ? "private_channels" : "channels"] += 1;
    counts.subscriptions += members.size;
  }
  for (const userId of deactivate) await userStore.setActive(tx.q, userId, false);
  counts.deactivated_users = deactivate.length;

  // Direct-message conversations: their people (two accounts with one email are one person).
  const conversations: Record<string, number[]> = {};
  for (const c of archive.conversations) {
    conversations[c.folder] = [...new Set(c.members.flatMap((m) => (users[m] ? [users[m][0]] : [])))];
    const kind = c.members.length > 2 ? "group_conversations" : "direct_conversations";
    counts[kind] = (counts[kind] ?? 0) + 1;
  }

  const state: RunState = { users, channels, conversations, day: 0, row: 0, counts, skipped: {} };
  await importStore.createRun(tx.q, realm.id, source, JSON.stringify(state), nowSeconds());
  return { state, realmId: realm.id };
}

/** Where a message goes: a channel ([channel id, recipient id, name]), or a conversation's people. */
type Destination = { kind: "channel"; channel: [number, number, string] } | { kind: "direct"; members: number[] };

/**
 * Each message's recipient and receivers: a channel's, or a direct message's among its people
 * (the sender one of them). One read of the people for the batch, and one recipient lookup per
 * conversation.
 */
async function recipientsOf(
  tx: Tx,
  realm: Realm,
  batch: ReadonlyArray<{ to: Destination; senderId: number }>,
  channelReceivers: ReadonlyMap<number, number[]>,
): Promise<Array<{ recipientId: number; receivers: number[] }>> {
  const peopleIds = batch.flatMap(({ to, senderId }) => (to.kind === "direct" ? [...to.members, senderId] : []));
  const users = new Map((await userStore.listByIds(tx.q, realm.id, [...new Set(peopleIds)])).map((u) => [u.id, u]));
  const recipients = new Map<string, number>();
  const out: Array<{ recipientId: number; receivers: number[] }> = [];
  for (const { to, senderId } of batch) {
    if (to.kind === "channel") {
      out.push({ recipientId: to.channel[1], receivers: channelReceivers.get(to.channel[1]) ?? [] });
      continue;
    }
    const receivers = [...new Set([...to.members, senderId])];
    // A 1:1 conversation's recipient depends on who sends: the key names the sender for those.
    const key = `${receivers.length > 2 ? "" : senderId}:${memberKey(receivers)}`;
    let recipientId = recipients.get(key);
    if (recipientId === undefined) {
      recipientId = await directMessageRecipientId(
        tx.q,
        realm.id,
        receivers.map((id) => users.get(id)!),
        senderId,
      );
      recipients.set(key, recipientId);
    }
    out.push({ recipientId, receivers });
  }
  return out;
}

/** One batch of converted messages: rendered by sender, written with receivers, reactions and files. */
async function writeMessages(
  tx: Tx,
  realm: Realm,
  state: RunState,
  batch: Array<{ to: Destination; m: ConvertedMessage }>,
  channelReceivers: ReadonlyMap<number, number[]>,
): Promise<void> {
  if (batch.length === 0) return;
  const userId = (slackId: string) => defined(state.users[slackId], `Slack user ${slackId}`)[0];
  const targets = await recipientsOf(
    tx,
    realm,
    batch.map(({ to, m }) => ({ to, senderId: userId(m.sender) })),
    channelReceivers,
  );
  // Files first: a message's rendering claims the uploads its sender owns.
  for (const { m } of batch) {
    for (const f of m.files) {
      await attachmentStore.insert(tx.q, {
        realm_id: realm.id,
        owner_id: userId(m.sender),
        file_name: f.fileName,
        path_id: f.pathId,
        size: f.size,
        content_type: f.contentType,
        create_time: m.dateSent,
      });
    }
    state.counts.files = (state.counts.files ?? 0) + m.files.length;
    if (m.missingFiles) state.counts.files_missing = (state.counts.files_missing ?? 0) + m.missingFiles;
  }
  const senders = await userStore.listByIds(tx.q, realm.id, [...new Set(batch.map(({ m }) => userId(m.sender)))]);
  const rendered = new Array<RenderedMessage>(batch.length);
  for (const sender of senders) {
    const mine = batch.flatMap(({ m }, i) => (userId(m.sender) === sender.id ? [i] : []));
    const results = await renderMessageContents(
      tx.q,
      realm,
      sender,
      mine.map((i) => at(batch, i).m.content),
    );
    mine.forEach((i, k) => (rendered[i] = at(results, k)));
  }
  const messages = await messageStore.insertMany(
    tx.q,
    batch.map(({ to, m }, i) => ({
      realm_id: realm.id,
      sender_id: userId(m.sender),
      recipient_id: at(targets, i).recipientId,
      // Direct messages have no topic; a thread in one is just more of the conversation.
      subject: to.kind === "channel" ? m.topic : "",
      content: m.content,
      rendered_content: at(rendered, i).html,
      rendered_content_version: 1,
      date_sent: m.dateSent,
      sending_client: "Slack import",
      has_attachment: at(rendered, i).hasAttachment || m.files.length > 0 ? 1 : 0,
      has_image: at(rendered, i).hasImage ? 1 : 0,
      has_link: at(rendered, i).hasLink ? 1 : 0,
      is_channel_message: to.kind === "channel" ? 1 : 0,
    })),
  );
  await messageSearchStore.index(tx.q, messages);

  // Receivers: the channel's members, or the conversation's people; history arrives read, mentions flagged.
  const userMessages: Array<{ user_id: number; message_id: number; flags: number }> = [];
  const reactions: Array<Record<string, unknown>> = [];
  for (const [i, { to, m }] of batch.entries()) {
    const message = at(messages, i);
    const r = at(rendered, i);
    for (const receiver of at(targets, i).receivers) {
      let flags = MessageFlag.READ | (to.kind === "direct" ? MessageFlag.IS_PRIVATE : 0);
      if (r.mentionedUserIds.has(receiver)) flags |= MessageFlag.MENTIONED;
      if (r.wildcard === "stream" && to.kind === "channel") flags |= MessageFlag.STREAM_WILDCARD_MENTIONED;
      userMessages.push({ user_id: receiver, message_id: message.id, flags });
    }
    if (r.attachments.length > 0)
      await attachmentStore.link(
        tx.q,
        message.id,
        r.attachments.map((a) => a.id),
      );
    // Two Slack accounts merged into one user, or two skin tones: one reaction (Zulip's unique key).
    const seen = new Set<string>();
    for (const reaction of m.reactions) {
      for (const slackUser of reaction.users) {
        const user = state.users[slackUser]?.[0];
        if (user === undefined || seen.has(`${user}:${reaction.emojiCode}`)) continue;
        seen.add(`${user}:${reaction.emojiCode}`);
        reactions.push({
          message_id: message.id,
          user_id: user,
          emoji_name: reaction.emojiName,
          emoji_code: reaction.emojiCode,
          reaction_type: "unicode_emoji",
        });
      }
    }
    if (m.unknownEmoji) state.counts.reactions_unknown_emoji = (state.counts.reactions_unknown_emoji ?? 0) + m.unknownEmoji;
  }
  await userMessageStore.insertMany(tx.q, userMessages);
  await importStore.insertRows(tx.q, "reactions", reactions);
  const inChannels = batch.flatMap(({ to }, i) => (to.kind === "channel" ? [{ channel: to.channel, message: at(messages, i) }] : []));
  await streamStore.countChannelMessages(
    tx.q,
    inChannels.map(({ channel, message }) => ({ recipientId: channel[1], id: message.id, dateSent: message.date_sent })),
  );
  await messageStore.setStreamsFirstMessageIdIfNull(
    tx.q,
    inChannels.map(({ channel, message }) => ({ streamId: channel[0], messageId: message.id })),
  );
  state.counts.messages = (state.counts.messages ?? 0) + batch.length;
  state.counts.direct_messages = (state.counts.direct_messages ?? 0) + batch.length - inChannels.length;
  state.counts.user_messages = (state.counts.user_messages ?? 0) + userMessages.length;
  state.counts.reactions = (state.counts.reactions ?? 0) + reactions.length;
}
