import type { Insertable } from "kysely";
import type { Realm, Stream, StreamsTable, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import {
  badRequest,
  InsufficientPermissionError,
  OldSettingValueMismatchError,
  OrganizationAdministratorRequiredError,
  OrganizationOwnerRequiredError,
} from "../lib/errors.js";
import {
  checkGroupSettingValue,
  groupSettingApiValues,
  sameGroupSetting,
  STREAM_GROUP_SETTING_NAMES,
  STREAM_GROUP_SETTINGS,
  storeGroupSetting,
  systemGroupIds,
  webPublicStreamsEnabled,
  type AnonymousGroupValue,
  type GroupSettingChange,
  type GroupSettingValue,
  type StreamGroupSettingName,
} from "../lib/groupSettings.js";
import { type AccessSubject, type ChannelAccess, hasRealmPermission, metadataAudience, visitorCanRead } from "../lib/streamAccess.js";
import type { SpectatorAudience } from "../events/types.js";
import { buildStreamPayload, loadStreamPayloadContext, streamPostPolicy } from "../lib/streamPayload.js";
import { isAdmin, isGuest, isOwner, RecipientType } from "../models/roles.js";
import { auditLogStore } from "../store/auditLog.js";
import { settingGroupStore, streamStore, subscriptionStore } from "../store/streams.js";
import { renderChannelDescription } from "../lib/messageRendering.js";
import { nowSeconds } from "../util/time.js";
import { archiveNotice, descriptionChangeNotice, renameNotice, sendChannelEventsNotice, unarchiveNotice } from "./channelNotices.js";
import type { StreamEvent } from "../events/types.js";
import { MAX_STREAM_NAME_LENGTH } from "../models/limits.js";
import { recipientStore } from "../store/recipients.js";
import { userStore } from "../store/users.js";
import { defined } from "../util/defined.js";

/** Zulip's check_stream_name. */
export function checkStreamName(name: string): void {
  if (name.trim() === "") throw badRequest("Channel name can't be empty.");
  if ([...name].length > MAX_STREAM_NAME_LENGTH) throw badRequest(`Channel name too long (limit: ${MAX_STREAM_NAME_LENGTH} characters).`);
  const chars = [...name];
  const bad = chars.findIndex((c) => /[\p{Cc}\p{Cs}\p{Cn}]/u.test(c));
  if (bad >= 0) throw badRequest(`Invalid character in channel name, at position ${bad + 1}.`);
}

/** Descriptions are one line (Zulip replaces newlines) rendered as a paragraph. */
export function normalizeDescription(text: string): string {
  return text.replace(/\r?\n|\r/g, " ");
}

/** Zulip's parse_message_retention_days with Stream.MESSAGE_RETENTION_SPECIAL_VALUES_MAP. */
export function parseMessageRetentionDays(value: unknown): number | null {
  if (value === "realm_default") return null;
  if (value === "unlimited") return -1;
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return value;
  throw badRequest(`Bad value for 'message_retention_days': ${typeof value === "string" ? value : JSON.stringify(value)}`);
}

// ---- events ----

async function sendStreamCreation(
  tx: Tx,
  realm: Realm,
  streams: readonly Stream[],
  userIds: Iterable<number>,
  opts: { traffic: boolean; unlessCapability?: "archived_channels" },
): Promise<void> {
  const users = [...userIds];
  if (users.length === 0 || streams.length === 0) return;
  const payloadCtx = await loadStreamPayloadContext(tx.q, realm.id, streams, { traffic: opts.traffic });
  const event: StreamEvent & { spectators: SpectatorAudience } = {
    type: "stream",
    op: "create",
    streams: streams.map((s) => buildStreamPayload(s, payloadCtx)),
    spectators: spectatorsOf(realm.id, streams),
  };
  tx.sendEventOnCommit(opts.unlessCapability ? { ...event, unless_capability: opts.unlessCapability } : event, users);
}

export function sendStreamDeletion(tx: Tx, streams: readonly Stream[], userIds: Iterable<number>): void {
  const users = [...userIds];
  if (users.length === 0) return;
  tx.sendEventOnCommit({ type: "stream", op: "delete", streams: streams.map((s) => ({ stream_id: s.id })), stream_ids: streams.map((s) => s.id) }, users);
}

async function sendStreamUpdate(
  tx: Tx,
  stream: Stream,
  fields: { property: string; value: unknown; [field: string]: unknown },
  audience?: Iterable<number>,
): Promise<void> {
  const users = audience ?? (await metadataAudience(tx.q, stream.realm_id, [stream])).get(stream.id)!;
  tx.sendEventOnCommit(
    { type: "stream", op: "update", stream_id: stream.id, name: stream.name, ...fields, spectators: spectatorsOf(stream.realm_id, [stream]) },
    users,
  );
}

/** For visitors' queues (events/visitorQueues.ts): whether visitors may read these channels now. */
function spectatorsOf(realmId: number, streams: readonly Stream[]): SpectatorAudience {
  return { realm_id: realmId, streams: streams.map((s) => ({ stream_id: s.id, recipient_id: s.recipient_id, readable: visitorCanRead(realmId, s) })) };
}

/**
 * Zulip's notify_default_streams: the realm's default channels, to every active non-guest. Channel
 * IDs since feature level 330, in POST /register's order (realm_default_streams).
 */
async function notifyDefaultStreams(tx: Tx, realm: Realm): Promise<void> {
  const ids = [...(await streamStore.defaultStreamIds(tx.q, realm.id))].sort((a, b) => a - b);
  const users = await userStore.listActiveRoles(tx.q, realm.id);
  tx.sendEventOnCommit(
    { type: "default_streams", default_streams: ids },
    users.filter((u) => !isGuest(u)).map((u) => u.id),
  );
}

// ---- creation ----

export interface NewStream {
  name: string;
  description: string;
  invite_only: boolean;
  is_web_public: boolean;
  history_public_to_subscribers: boolean | undefined;
  message_retention_days: number | null;
  /** Checked values (checkGroupSettingValue); absent settings get Zulip's defaults. */
  groupSettings: Partial<Record<StreamGroupSettingName, GroupSettingValue>>;
}

/** Zulip's check_channel_creation_permissions. */
export async function checkChannelCreationPermissions(tx: Tx, subject: AccessSubject, realm: Realm, spec: NewStream, isDefault: boolean): Promise<void> {
  const user = subject.user;
  const policy = spec.invite_only ? "can_create_private_channel_group" : "can_create_public_channel_group";
  if (!(await hasRealmPermission(tx.q, subject, realm, policy))) throw new InsufficientPermissionError();
  if (isDefault && !isAdmin(user)) throw new InsufficientPermissionError();
  if (spec.invite_only && isDefault) throw badRequest("A default channel cannot be private.");
  if (spec.is_web_public) {
    if (!webPublicStreamsEnabled(realm)) throw badRequest("Web-public channels are not enabled.");
    if (!(await hasRealmPermission(tx.q, subject, realm, "can_create_web_public_channel_group"))) throw new InsufficientPermissionError();
    // A web-public channel is public with shared history (Zulip never stores another combination).
    if (spec.invite_only) throw badRequest("Invalid parameters");
  }
  if (spec.message_retention_days !== null && !isOwner(user)) throw new OrganizationOwnerRequiredError();
}

/**
 * Creates channels with their recipients and permission groups, and announces each to whoever may
 * see it (Zulip's create_streams_if_needed): the same rows and events as creating them one by one,
 * in that order, with one statement per table for all of them. The caller checked the names and
 * permissions. Returns the channels in the order of `specs`.
 */
export async function doCreateStreams(tx: Tx, realm: Realm, creator: User | null, specs: readonly NewStream[]): Promise<Stream[]> {
  if (specs.length === 0) return [];
  const groups = await systemGroupIds(tx.q, realm.id);
  const values = specs.map(
    (spec) =>
      Object.fromEntries(
        STREAM_GROUP_SETTING_NAMES.map((name): [StreamGroupSettingName, GroupSettingValue] => {
          const given = spec.groupSettings[name];
          const fallback = STREAM_GROUP_SETTINGS[name].defaultGroup;
          return [
            name,
            given ??
              (fallback === "stream_creator_or_nobody"
                ? creator
                  ? { direct_members: [creator.id], direct_subgroups: [] }
                  : groups.get("role:nobody")!
                : groups.get(fallback)!),
          ];
        }),
      ) as Record<StreamGroupSettingName, GroupSettingValue>,
  );
  // The anonymous groups of every channel, in the order creating them one by one would make them.
  const anonymous = values.flatMap((v) => STREAM_GROUP_SETTING_NAMES.map((name) => v[name]).filter((g): g is AnonymousGroupValue => typeof g !== "number"));
  const anonymousIds = await settingGroupStore.createAnonymousMany(
    tx.q,
    realm.id,
    anonymous.map((g) => ({ members: g.direct_members, subgroups: g.direct_subgroups })),
  );
  let nextAnonymous = 0;
  const date = nowSeconds();
  const renderedDescriptions: string[] = [];
  for (const spec of specs) renderedDescriptions.push(await renderChannelDescription(tx.q, realm, creator, spec.description));
  const rows = specs.map((spec, i): Insertable<StreamsTable> => {
    const settingIds: Partial<Record<`${StreamGroupSettingName}_id`, number>> = {};
    for (const name of STREAM_GROUP_SETTING_NAMES) {
      const value = defined(values[i], `the settings of channel ${i}`)[name];
      settingIds[`${name}_id`] = typeof value === "number" ? value : anonymousIds[nextAnonymous++];
    }
    return {
      realm_id: realm.id,
      name: spec.name,
      description: spec.description,
      rendered_description: renderedDescriptions[i],
      invite_only: spec.invite_only ? 1 : 0,
      is_web_public: spec.is_web_public ? 1 : 0,
      // Public channels always share history; private ones protect it unless asked (Zulip's default).
      history_public_to_subscribers: !spec.invite_only || spec.history_public_to_subscribers === true ? 1 : 0,
      date_created: date,
      creator_id: creator?.id ?? null,
      message_retention_days: spec.message_retention_days,
      ...settingIds,
    };
  });
  const streams = await streamStore.insertMany(tx.q, rows);
  const recipientIds = await recipientStore.insertMany(
    tx.q,
    RecipientType.STREAM,
    streams.map((s) => s.id),
  );
  await streamStore.linkRecipients(
    tx.q,
    streams.map((s) => s.id),
  );
  const created = streams.map((s) => ({ ...s, recipient_id: recipientIds.get(s.id)! }));
  await auditLogStore.insertMany(
    tx.q,
    created.map((s) => ({ realm_id: realm.id, event_type: "stream_created", acting_user_id: creator?.id ?? null, modified_stream_id: s.id })),
  );
  // One `stream create` event per channel, to whoever may see it.
  const audiences = await metadataAudience(tx.q, realm.id, created);
  const ctx = await loadStreamPayloadContext(tx.q, realm.id, created, { systemGroups: groups, traffic: false });
  for (const stream of created) {
    const users = [...audiences.get(stream.id)!];
    // Sent to no user too: visitors' queues learn of a new web-public channel.
    tx.sendEventOnCommit({ type: "stream", op: "create", streams: [buildStreamPayload(stream, ctx)], spectators: spectatorsOf(realm.id, [stream]) }, users);
  }
  return created;
}

// ---- changes (PATCH /streams/{id}) ----

export interface UpdateStreamRequest {
  new_name?: string;
  description?: string;
  is_private?: boolean;
  is_web_public?: boolean;
  history_public_to_subscribers?: boolean;
  is_default_stream?: boolean;
  message_retention_days?: unknown;
  is_archived?: boolean;
  groupSettings: Partial<Record<StreamGroupSettingName, GroupSettingChange>>;
}

/**
 * Zulip's update_stream_backend with every check before the first write. `access` comes from
 * accessStreamById(..., "administer").
 */
export async function checkUpdateStream(tx: Tx, subject: AccessSubject, realm: Realm, access: ChannelAccess, req: UpdateStreamRequest): Promise<void> {
  const user = subject.user;
  const stream = access.stream;
  const defaults = await streamStore.defaultStreamIds(tx.q, realm.id);
  const isPrivate = req.is_private ?? stream.invite_only === 1;
  const isWebPublic = req.is_web_public ?? stream.is_web_public === 1;
  const isDefault = req.is_default_stream ?? defaults.has(stream.id);
  const historyPublic = req.history_public_to_subscribers ?? (req.is_private !== undefined ? !req.is_private : stream.history_public_to_subscribers === 1);
  if (isWebPublic && !historyPublic) throw badRequest("Invalid parameters");
  if (isWebPublic && isPrivate) throw badRequest("Invalid parameters");
  if (!isPrivate && !historyPublic) throw badRequest("Invalid parameters");
  if (isPrivate && isDefault) throw badRequest("A default channel cannot be private.");
  if (req.is_private !== undefined) {
    if (!access.canReadContent) throw badRequest("Channel content access is required.");
    const policy = req.is_private ? "can_create_private_channel_group" : "can_create_public_channel_group";
    if (!(await hasRealmPermission(tx.q, subject, realm, policy))) throw new InsufficientPermissionError();
  }
  if (req.is_web_public) {
    if (!webPublicStreamsEnabled(realm)) throw badRequest("Web-public channels are not enabled.");
    if (!(await hasRealmPermission(tx.q, subject, realm, "can_create_web_public_channel_group"))) throw new InsufficientPermissionError();
  }
  if (req.is_default_stream !== undefined && !isAdmin(user)) throw new OrganizationAdministratorRequiredError();
  let retention: number | null | undefined;
  if (req.message_retention_days !== undefined) {
    if (!isOwner(user)) throw new OrganizationOwnerRequiredError();
    retention = parseMessageRetentionDays(req.message_retention_days);
  }
  if (req.is_archived === false) await checkUnarchive(tx, stream);
  const description = req.description !== undefined ? normalizeDescription(req.description) : undefined;
  let newName: string | undefined;
  if (req.new_name !== undefined) {
    newName = req.new_name.trim();
    if (newName === stream.name) throw badRequest("Channel already has that name.");
    if (newName.toLowerCase() !== stream.name.toLowerCase()) await checkStreamNameAvailable(tx, realm, newName);
  }
  const groupChanges = await checkGroupSettingChanges(tx, realm, access, req.groupSettings);

  let current = stream;
  if (req.is_private !== undefined || req.is_web_public !== undefined || req.history_public_to_subscribers !== undefined) {
    current = await doChangeStreamPermission(
      tx,
      realm,
      current,
      { invite_only: isPrivate, history_public_to_subscribers: historyPublic, is_web_public: isWebPublic },
      user,
    );
  }
  if (req.is_default_stream !== undefined && req.is_default_stream !== defaults.has(stream.id))
    await doSetDefaultStream(tx, realm, current, req.is_default_stream);
  if (retention !== undefined) current = await doChangeStreamMessageRetentionDays(tx, current, retention, user);
  if (req.is_archived === false) current = await doUnarchiveStream(tx, realm, current, user);
  if (description !== undefined) current = await doChangeStreamDescription(tx, realm, current, description, user);
  if (newName !== undefined) current = await doRenameStream(tx, realm, current, newName, user);
  for (const [name, value] of groupChanges) current = await doChangeStreamGroupSetting(tx, realm, current, name, value, user);
}

/** Zulip's check_stream_name_available for a rename. */
async function checkStreamNameAvailable(tx: Tx, realm: Realm, name: string): Promise<void> {
  checkStreamName(name);
  if (await streamStore.getByName(tx.q, realm.id, name)) throw badRequest(`Channel '${name}' already exists`);
}

/** The group settings that really change, checked: 'old' must match, values valid, content access where needed. */
async function checkGroupSettingChanges(
  tx: Tx,
  realm: Realm,
  access: ChannelAccess,
  changes: Partial<Record<StreamGroupSettingName, GroupSettingChange>>,
): Promise<Array<[StreamGroupSettingName, GroupSettingValue]>> {
  const names = STREAM_GROUP_SETTING_NAMES.filter((n) => changes[n] !== undefined);
  if (names.length === 0) return [];
  const nobody = (await systemGroupIds(tx.q, realm.id)).get("role:nobody")!;
  const currentIds = names.map((n) => access.stream[`${n}_id`]).filter((id): id is number => id !== null);
  const currentValues = await groupSettingApiValues(tx.q, realm.id, currentIds);
  const result: Array<[StreamGroupSettingName, GroupSettingValue]> = [];
  for (const name of names) {
    const change = changes[name]!;
    const current = currentValues.get(access.stream[`${name}_id`] ?? -1) ?? nobody;
    const config = STREAM_GROUP_SETTINGS[name];
    if (change.old !== undefined) {
      const expected = await checkGroupSettingValue(tx.q, realm.id, name, config, change.old, nobody);
      if (!sameGroupSetting(expected, current)) throw new OldSettingValueMismatchError();
    }
    const value = await checkGroupSettingValue(tx.q, realm.id, name, config, change.new, nobody);
    if (sameGroupSetting(value, current)) continue;
    if ((name === "can_add_subscribers_group" || name === "can_subscribe_group") && !access.canReadContent) {
      throw badRequest("Channel content access is required.");
    }
    result.push([name, value]);
  }
  return result;
}

async function doRenameStream(tx: Tx, realm: Realm, stream: Stream, newName: string, actor: User): Promise<Stream> {
  await streamStore.update(tx.q, stream.id, { name: newName });
  await auditLogStore.insert(tx.q, {
    realm_id: stream.realm_id,
    event_type: "stream_name_changed",
    acting_user_id: actor.id,
    modified_stream_id: stream.id,
    extra_data: { old_value: stream.name, new_value: newName },
  });
  await sendStreamUpdate(tx, stream, { property: "name", value: newName });
  const renamed = { ...stream, name: newName };
  await sendChannelEventsNotice(tx, realm, renamed, actor, renameNotice(actor, stream.name, newName));
  return renamed;
}

async function doChangeStreamDescription(tx: Tx, realm: Realm, stream: Stream, description: string, actor: User): Promise<Stream> {
  const rendered = await renderChannelDescription(tx.q, realm, actor, description);
  await streamStore.update(tx.q, stream.id, { description, rendered_description: rendered });
  await auditLogStore.insert(tx.q, {
    realm_id: stream.realm_id,
    event_type: "stream_property_changed",
    acting_user_id: actor.id,
    modified_stream_id: stream.id,
    extra_data: { old_value: stream.description, new_value: description, property: "description" },
  });
  await sendStreamUpdate(tx, stream, { property: "description", value: description, rendered_description: rendered });
  const updated = { ...stream, description, rendered_description: rendered };
  await sendChannelEventsNotice(tx, realm, updated, actor, descriptionChangeNotice(actor, stream.description, description));
  return updated;
}

/**
 * Zulip's do_change_stream_permission: one `invite_only` update event for whoever sees the
 * channel now; a channel made public is announced (create + peer_add) to those who could not see it.
 */
async function doChangeStreamPermission(
  tx: Tx,
  realm: Realm,
  stream: Stream,
  next: { invite_only: boolean; history_public_to_subscribers: boolean; is_web_public: boolean },
  actor: User,
): Promise<Stream> {
  const before = (await metadataAudience(tx.q, realm.id, [stream])).get(stream.id)!;
  const updated: Stream = {
    ...stream,
    invite_only: next.invite_only ? 1 : 0,
    history_public_to_subscribers: next.history_public_to_subscribers ? 1 : 0,
    is_web_public: next.is_web_public ? 1 : 0,
  };
  await streamStore.update(tx.q, stream.id, {
    invite_only: updated.invite_only,
    history_public_to_subscribers: updated.history_public_to_subscribers,
    is_web_public: updated.is_web_public,
  });
  for (const property of ["invite_only", "history_public_to_subscribers", "is_web_public"] as const) {
    if (stream[property] === updated[property]) continue;
    await auditLogStore.insert(tx.q, {
      realm_id: realm.id,
      event_type: "stream_property_changed",
      acting_user_id: actor.id,
      modified_stream_id: stream.id,
      extra_data: { old_value: stream[property] === 1, new_value: updated[property] === 1, property },
    });
  }
  const after = (await metadataAudience(tx.q, realm.id, [updated])).get(stream.id)!;
  const newlyVisible = stream.invite_only && !updated.invite_only ? [...after].filter((id) => !before.has(id)) : [];
  if (newlyVisible.length > 0) {
    await sendStreamCreation(tx, realm, [updated], newlyVisible, { traffic: true });
    const subscribers = (await subscriptionStore.subscriberIds(tx.q, [stream.recipient_id])).get(stream.recipient_id)!;
    tx.sendEventOnCommit({ type: "subscription", op: "peer_add", stream_ids: [stream.id], user_ids: subscribers }, newlyVisible);
  }
  await sendStreamUpdate(
    tx,
    updated,
    {
      property: "invite_only",
      value: next.invite_only,
      history_public_to_subscribers: next.history_public_to_subscribers,
      is_web_public: next.is_web_public,
    },
    [...after].filter((id) => !newlyVisible.includes(id)),
  );
  // Zulip's do_change_stream_permission: those who can no longer see the channel lose it.
  sendStreamDeletion(
    tx,
    [updated],
    [...before].filter((id) => !after.has(id)),
  );
  return updated;
}

async function doChangeStreamMessageRetentionDays(tx: Tx, stream: Stream, days: number | null, actor: User): Promise<Stream> {
  await streamStore.update(tx.q, stream.id, { message_retention_days: days });
  await auditLogStore.insert(tx.q, {
    realm_id: stream.realm_id,
    event_type: "stream_message_retention_days_changed",
    acting_user_id: actor.id,
    modified_stream_id: stream.id,
    extra_data: { old_value: stream.message_retention_days, new_value: days },
  });
  await sendStreamUpdate(tx, stream, { property: "message_retention_days", value: days });
  return { ...stream, message_retention_days: days };
}

/**
 * Zulip's do_change_stream_group_based_setting. Settings that grant metadata access announce
 * the channel to users who gain it and delete it for those who lose it.
 */
async function doChangeStreamGroupSetting(
  tx: Tx,
  realm: Realm,
  stream: Stream,
  name: StreamGroupSettingName,
  value: GroupSettingValue,
  actor: User,
): Promise<Stream> {
  const column = `${name}_id` as const;
  const oldGroupId = stream[column];
  const oldValues = await groupSettingApiValues(tx.q, realm.id, oldGroupId !== null ? [oldGroupId] : []);
  const oldValue = oldGroupId !== null ? oldValues.get(oldGroupId) : undefined;
  const oldAnonymous = oldValue !== undefined && typeof oldValue !== "number";
  const before = (await metadataAudience(tx.q, realm.id, [stream])).get(stream.id)!;

  // An anonymous group belongs to this setting alone: reuse it, or drop it for a named group.
  const groupId = await storeGroupSetting(tx.q, realm.id, value, oldAnonymous && typeof value !== "number" ? oldGroupId! : undefined);
  await streamStore.update(tx.q, stream.id, { [column]: groupId });
  if (oldAnonymous && typeof value === "number") await settingGroupStore.deleteAnonymous(tx.q, oldGroupId!);
  const updated: Stream = { ...stream, [column]: groupId };
  await auditLogStore.insert(tx.q, {
    realm_id: realm.id,
    event_type: "stream_group_based_setting_changed",
    acting_user_id: actor.id,
    modified_stream_id: stream.id,
    extra_data: { old_value: oldValue ?? null, new_value: value, property: name },
  });

  const after = (await metadataAudience(tx.q, realm.id, [updated])).get(stream.id)!;
  const gaining = [...after].filter((id) => !before.has(id));
  const losing = [...before].filter((id) => !after.has(id));
  await sendStreamUpdate(
    tx,
    updated,
    { property: name, value },
    [...after].filter((id) => !gaining.includes(id)),
  );
  if (gaining.length > 0) {
    await sendStreamCreation(tx, realm, [updated], gaining, { traffic: true });
    const subscribers = (await subscriptionStore.subscriberIds(tx.q, [stream.recipient_id])).get(stream.recipient_id)!;
    tx.sendEventOnCommit({ type: "subscription", op: "peer_add", stream_ids: [stream.id], user_ids: subscribers }, gaining);
  }
  sendStreamDeletion(tx, [updated], losing);

  if (name === "can_send_message_group") {
    const ctx = await loadStreamPayloadContext(tx.q, realm.id, []);
    const oldPolicy = streamPostPolicy(stream, ctx);
    const newPolicy = streamPostPolicy(updated, ctx);
    if (oldPolicy !== newPolicy) {
      await sendStreamUpdate(tx, updated, { property: "stream_post_policy", value: newPolicy }, after);
      await sendStreamUpdate(tx, updated, { property: "is_announcement_only", value: newPolicy === 2 }, after);
    }
  }
  return updated;
}

/** Adds or removes a default channel and tells the realm (Zulip's do_add/remove_default_stream). */
export async function doSetDefaultStream(tx: Tx, realm: Realm, stream: Stream, isDefault: boolean): Promise<void> {
  if (isDefault) await streamStore.addDefaultStreams(tx.q, realm.id, [stream.id]);
  else await streamStore.removeDefaultStream(tx.q, realm.id, stream.id);
  await notifyDefaultStreams(tx, realm);
}

/** POST /default_streams (Zulip's add_default_stream): administrators; public channels only; a default channel stays as it is. */
export async function checkAddDefaultStream(tx: Tx, realm: Realm, access: ChannelAccess): Promise<void> {
  if (access.stream.invite_only) throw badRequest("Private channels cannot be made default.");
  if ((await streamStore.defaultStreamIds(tx.q, realm.id)).has(access.stream.id)) return;
  await doSetDefaultStream(tx, realm, access.stream, true);
}

/** DELETE /default_streams (Zulip's remove_default_stream): removing a channel that is not a default changes nothing. */
export async function checkRemoveDefaultStream(tx: Tx, realm: Realm, access: ChannelAccess): Promise<void> {
  if (!(await streamStore.defaultStreamIds(tx.q, realm.id)).has(access.stream.id)) return;
  await doSetDefaultStream(tx, realm, access.stream, false);
}

// ---- archiving ----

/** DELETE /streams/{id}: archives; subscriptions stay (Zulip 10). `access` from accessStreamById(administer). */
export async function checkDeactivateStream(tx: Tx, realm: Realm, access: ChannelAccess, actor: User): Promise<void> {
  if (access.stream.is_archived) throw badRequest("Channel is already deactivated");
  await doDeactivateStream(tx, realm, access.stream, actor);
}

async function doDeactivateStream(tx: Tx, realm: Realm, stream: Stream, actor: User | null): Promise<void> {
  const audience = (await metadataAudience(tx.q, realm.id, [stream])).get(stream.id)!;
  await streamStore.update(tx.q, stream.id, { is_archived: 1 });
  const defaults = await streamStore.defaultStreamIds(tx.q, realm.id);
  if (defaults.has(stream.id)) await doSetDefaultStream(tx, realm, stream, false);
  // Clients without the archived_channels capability get a delete instead (events/clientEvents.ts).
  await sendStreamUpdate(tx, { ...stream, is_archived: 1 }, { property: "is_archived", value: true }, audience);
  await auditLogStore.insert(tx.q, { realm_id: realm.id, event_type: "stream_deactivated", acting_user_id: actor?.id ?? null, modified_stream_id: stream.id });
  // Zulip's archived_channel_notice: posted after archiving, unread for nobody.
  await sendChannelEventsNotice(tx, realm, { ...stream, is_archived: 1 }, null, archiveNotice(stream), { alsoReadBy: "all" });
}

async function checkUnarchive(tx: Tx, stream: Stream): Promise<void> {
  if (!stream.is_archived) throw badRequest("Channel is not currently deactivated");
  if (stream.invite_only) {
    const subscribers = (await subscriptionStore.subscriberIds(tx.q, [stream.recipient_id])).get(stream.recipient_id)!;
    if (subscribers.length === 0) throw badRequest("Channel is private and have no subscribers");
  }
}

/** Zulip's do_unarchive_stream: the channel comes back and is announced to whoever may see it. */
async function doUnarchiveStream(tx: Tx, realm: Realm, stream: Stream, actor: User): Promise<Stream> {
  const updated: Stream = { ...stream, is_archived: 0, is_web_public: stream.invite_only ? 0 : stream.is_web_public };
  await streamStore.update(tx.q, stream.id, { is_archived: 0, is_web_public: updated.is_web_public });
  await auditLogStore.insert(tx.q, { realm_id: realm.id, event_type: "stream_reactivated", acting_user_id: actor.id, modified_stream_id: stream.id });
  const audience = (await metadataAudience(tx.q, realm.id, [updated])).get(stream.id)!;
  // Clients that keep archived channels learn of the change; older ones see the channel created.
  await sendStreamUpdate(tx, updated, { property: "is_archived", value: false }, audience);
  if (updated.is_web_public !== stream.is_web_public) await sendStreamUpdate(tx, updated, { property: "is_web_public", value: false }, audience);
  await sendStreamCreation(tx, realm, [updated], audience, { traffic: true, unlessCapability: "archived_channels" });
  await sendChannelEventsNotice(tx, realm, updated, actor, unarchiveNotice(updated.name));
  return updated;
}
