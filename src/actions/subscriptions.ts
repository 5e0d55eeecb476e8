import { sendNewSubscriptionNotices } from "./channelNotices.js";
import type { Insertable } from "kysely";
import type { Realm, Stream, SubscriptionsTable, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { badRequest, GuestNotAllowedError, InsufficientPermissionError, InvalidChannelIdError, TargetUserDeactivatedError } from "../lib/errors.js";
import { checkGroupSettingValue, STREAM_GROUP_SETTINGS, systemGroupIds, type GroupSettingValue, type StreamGroupSettingName } from "../lib/groupSettings.js";
import { type GuestAccessSnapshot, sendGuestAccessChanges, snapshotGuestAccess, userAccessMayBeRestricted } from "../lib/userAccessEvents.js";
import { type AccessSubject, canSubscribeOthers, channelAccess, metadataAudience } from "../lib/streamAccess.js";
import { buildStreamPayload, buildSubscriptionPayload, loadStreamPayloadContext } from "../lib/streamPayload.js";
import { isAdmin, isGuest } from "../models/roles.js";
import { type AuditEntry, auditLogStore } from "../store/auditLog.js";
import { streamStore } from "../store/streams.js";
import { subscriptionStore, type Subscription } from "../store/subscriptions.js";
import { foldCase } from "../util/foldCase.js";
import {
  checkChannelCreationPermissions,
  checkStreamName,
  doCreateStreams,
  doSetDefaultStream,
  normalizeDescription,
  parseMessageRetentionDays,
  sendStreamDeletion,
  type NewStream,
} from "./streams.js";
import { userStore } from "../store/users.js";
import { STREAM_ASSIGNMENT_COLORS } from "../contract/streamColors.js";
import { defined } from "../util/defined.js";

const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

/** Principals are all ids or all API emails (Zulip's bulk_principals_to_user_profiles). */
export type Principals = number[] | string[];

async function resolvePrincipals(tx: Tx, actor: User, principals: Principals): Promise<User[]> {
  const byId = typeof principals[0] === "number";
  const users = byId
    ? await userStore.listByIds(tx.q, actor.realm_id, principals as number[])
    : await userStore.listByApiEmails(tx.q, actor.realm_id, principals as string[]);
  const found = (p: number | string) => users.some((u) => (typeof p === "number" ? u.id === p : foldCase(u.email) === foldCase(p.trim())));
  if (!principals.every(found)) throw badRequest("No such user");
  if (users.some((u) => !u.is_active)) throw new TargetUserDeactivatedError();
  return users.sort((a, b) => a.id - b.id);
}

// ---- subscribing (POST /users/me/subscriptions) ----

export interface AddSubscriptionsRequest {
  subscriptions: Array<{ name: string; description?: string; color?: string }>;
  principals?: Principals;
  authorization_errors_fatal: boolean;
  /** Announce new channels in the realm's new_stream_announcements_stream. */
  announce: boolean;
  invite_only: boolean;
  is_web_public: boolean;
  is_default_stream: boolean;
  history_public_to_subscribers?: boolean;
  message_retention_days: unknown;
  groupSettings: Partial<Record<StreamGroupSettingName, GroupSettingValue>>;
}

export type AddSubscriptionsResult = {
  subscribed: Record<string, string[]>;
  already_subscribed: Record<string, string[]>;
  unauthorized?: string[];
};

/** Zulip's add_subscriptions_backend: creates missing channels, then subscribes; all checks first. */
export async function checkAddSubscriptions(tx: Tx, subject: AccessSubject, realm: Realm, req: AddSubscriptionsRequest): Promise<AddSubscriptionsResult> {
  const user = subject.user;
  if (isGuest(user)) throw new GuestNotAllowedError();
  const nobody = (await systemGroupIds(tx.q, realm.id)).get("role:nobody")!;
  const groupSettings: NewStream["groupSettings"] = {};
  for (const [name, value] of Object.entries(req.groupSettings) as Array<[StreamGroupSettingName, GroupSettingValue]>) {
    groupSettings[name] = await checkGroupSettingValue(tx.q, realm.id, name, STREAM_GROUP_SETTINGS[name], value, nobody);
  }
  const retention = parseMessageRetentionDays(req.message_retention_days);
  const colors = new Map<string, string>();
  const wanted = new Map<string, { name: string; description?: string }>();
  for (const item of req.subscriptions) {
    if (item.color !== undefined && !HEX_COLOR.test(item.color)) throw badRequest("add.color is not a valid hex color code");
    const name = item.name.trim();
    checkStreamName(name);
    if (item.color !== undefined) colors.set(name.toLowerCase(), item.color);
    if (!wanted.has(name.toLowerCase())) wanted.set(name.toLowerCase(), { name, description: item.description });
  }
  const principals = req.principals ?? [];
  const subscribingOthers = principals.length > 0 && !principals.every((p) => p === user.id);

  const existing = await streamStore.listByNames(
    tx.q,
    realm.id,
    [...wanted.values()].map((w) => w.name),
  );
  const existingByName = new Map(existing.map((s) => [s.name.toLowerCase(), s]));
  const missing = [...wanted.values()].filter((w) => !existingByName.has(w.name.toLowerCase()));
  const specs: NewStream[] = missing.map((w) => ({
    name: w.name,
    description: normalizeDescription(w.description ?? ""),
    invite_only: req.invite_only,
    is_web_public: req.is_web_public,
    history_public_to_subscribers: req.history_public_to_subscribers,
    message_retention_days: retention,
    groupSettings,
  }));
  // The new channels differ only in name and description: one check covers them all.
  const [firstSpec] = specs;
  if (firstSpec !== undefined) await checkChannelCreationPermissions(tx, subject, realm, firstSpec, req.is_default_stream);

  const authorized: Stream[] = [];
  const unauthorized: Stream[] = [];
  let cannotAddOthers = false;
  for (const w of wanted.values()) {
    const stream = existingByName.get(w.name.toLowerCase());
    if (!stream) continue;
    const access = await channelAccess(tx.q, subject, stream);
    if (!access.canReadContent) unauthorized.push(stream);
    else if (subscribingOthers && !(await canSubscribeOthers(tx.q, subject, realm, access))) cannotAddOthers = true;
    else authorized.push(stream);
  }
  const [firstUnauthorized] = unauthorized;
  if (firstUnauthorized !== undefined && req.authorization_errors_fatal) throw badRequest(`Unable to access channel (${firstUnauthorized.name}).`);
  if (cannotAddOthers) throw new InsufficientPermissionError();
  const subscribers = subscribingOthers ? await resolvePrincipals(tx, user, principals) : [user];

  const created = await doCreateStreams(tx, realm, user, specs);
  if (req.is_default_stream) for (const stream of created) await doSetDefaultStream(tx, realm, stream, true);

  const colorByRecipient = new Map<number, string>();
  for (const stream of [...authorized, ...created]) {
    const color = colors.get(stream.name.toLowerCase());
    if (color !== undefined) colorByRecipient.set(stream.recipient_id, color);
  }
  const { subscribed, alreadySubscribed } = await bulkAddSubscriptions(tx, realm, [...authorized, ...created], subscribers, colorByRecipient, user);
  subject.forgetSubscriptions();
  await sendNewSubscriptionNotices(tx, realm, user, subscribed, created, req.announce);
  const result: AddSubscriptionsResult = { subscribed: namesByUser(subscribed), already_subscribed: namesByUser(alreadySubscribed) };
  if (!req.authorization_errors_fatal) result.unauthorized = unauthorized.map((s) => s.name);
  return result;
}

type SubPair = { user: User; stream: Stream };

function namesByUser(pairs: readonly SubPair[]): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const { user, stream } of pairs) (result[String(user.id)] ??= []).push(stream.name);
  return result;
}

/** Zulip's pick_colors: requested colours, then unused palette colours, then by recipient id. */
function pickColors(used: readonly string[], requested: Map<number, string>, recipientIds: readonly number[]): Map<number, string> {
  const taken = new Set(used);
  const result = new Map<number, string>();
  const others: number[] = [];
  for (const id of [...recipientIds].sort((a, b) => a - b)) {
    const color = requested.get(id);
    if (color !== undefined) {
      result.set(id, color);
      taken.add(color);
    } else others.push(id);
  }
  const available = STREAM_ASSIGNMENT_COLORS.filter((c) => !taken.has(c));
  others.forEach((id, i) => result.set(id, available[i] ?? defined(STREAM_ASSIGNMENT_COLORS[id % STREAM_ASSIGNMENT_COLORS.length], "a color")));
  return result;
}

/**
 * Zulip's bulk_add_subscriptions: new or reactivated subscriptions, then events in Zulip's order:
 * `stream create` for users who could not see the channel, `subscription add` to each new
 * subscriber, `peer_add` to everyone else who sees the channel's subscribers.
 */
export async function bulkAddSubscriptions(
  tx: Tx,
  realm: Realm,
  streams: readonly Stream[],
  users: readonly User[],
  colors: Map<number, string>,
  actor: User | null,
): Promise<{ subscribed: SubPair[]; alreadySubscribed: SubPair[] }> {
  const recipientIds = streams.map((s) => s.recipient_id);
  const existing = await subscriptionStore.listForUsers(
    tx.q,
    users.map((u) => u.id),
    recipientIds,
  );
  const audienceBefore = await metadataAudience(tx.q, realm.id, streams);
  const guestAccessBefore = await snapshotGuestAccessAround(tx, realm, streams, users);
  const subscribed: SubPair[] = [];
  const alreadySubscribed: SubPair[] = [];
  // Planned for every user first, then written in one statement per table.
  const usedColors = await subscriptionStore.colorsByUser(
    tx.q,
    users.map((u) => u.id),
  );
  const inserts: Insertable<SubscriptionsTable>[] = [];
  const reactivate: number[] = [];
  const audit: AuditEntry[] = [];
  for (const user of users) {
    const mine = existing.filter((s) => s.user_id === user.id);
    const fresh = streams.filter((s) => !mine.some((m) => m.recipient_id === s.recipient_id));
    const palette = pickColors(
      usedColors.get(user.id) ?? [],
      colors,
      fresh.map((s) => s.recipient_id),
    );
    inserts.push(
      ...fresh.map((s) => ({ user_id: user.id, recipient_id: s.recipient_id, color: palette.get(s.recipient_id)!, is_user_active: user.is_active })),
    );
    reactivate.push(...mine.filter((m) => !m.active).map((m) => m.id));
    for (const stream of streams) {
      const row = mine.find((m) => m.recipient_id === stream.recipient_id);
      if (row?.active) {
        alreadySubscribed.push({ user, stream });
        continue;
      }
      subscribed.push({ user, stream });
      audit.push({
        realm_id: realm.id,
        event_type: row ? "subscription_activated" : "subscription_created",
        acting_user_id: actor?.id ?? null,
        modified_user_id: user.id,
        modified_stream_id: stream.id,
      });
    }
  }
  await subscriptionStore.insertMany(tx.q, inserts);
  await subscriptionStore.setActive(tx.q, reactivate, true);
  await auditLogStore.insertMany(tx.q, audit);
  if (subscribed.length > 0) {
    await notifySubscriptionsAdded(tx, realm, streams, subscribed, audienceBefore);
    await sendGuestAccessChanges(tx, realm, guestAccessBefore);
  }
  return { subscribed, alreadySubscribed };
}

/**
 * The restricted guests a change of these subscriptions may give or take access to users: the
 * users changed and the channels' subscribers (Zulip's send_user_creation_events_on_adding_subscriptions
 * and send_user_remove_events_on_removing_subscriptions).
 */
async function snapshotGuestAccessAround(tx: Tx, realm: Realm, streams: readonly Stream[], users: readonly User[]): Promise<GuestAccessSnapshot> {
  if (!userAccessMayBeRestricted(realm)) return new Map();
  const subscribers = await subscriptionStore.subscriberIds(
    tx.q,
    streams.map((s) => s.recipient_id),
  );
  return snapshotGuestAccess(tx.q, realm, [...users.map((u) => u.id), ...[...subscribers.values()].flat()]);
}

async function notifySubscriptionsAdded(
  tx: Tx,
  realm: Realm,
  streams: readonly Stream[],
  added: readonly SubPair[],
  audienceBefore: Map<number, Set<number>>,
): Promise<void> {
  const ctx = await loadStreamPayloadContext(tx.q, realm.id, streams);
  const subscribers = await subscriptionStore.subscriberIds(
    tx.q,
    streams.map((s) => s.recipient_id),
  );
  const audienceAfter = await metadataAudience(tx.q, realm.id, streams);
  const rows = await subscriptionStore.listForUsers(
    tx.q,
    [...new Set(added.map((p) => p.user.id))],
    streams.map((s) => s.recipient_id),
  );

  // Channels new subscribers could not see before (private ones; public ones for guests).
  for (const stream of streams) {
    const newViewers = added.filter((p) => p.stream.id === stream.id && !audienceBefore.get(stream.id)!.has(p.user.id)).map((p) => p.user.id);
    if (newViewers.length > 0) tx.sendEventOnCommit({ type: "stream", op: "create", streams: [buildStreamPayload(stream, ctx)] }, newViewers);
  }
  for (const user of new Set(added.map((p) => p.user))) {
    const subs = added
      .filter((p) => p.user === user)
      .map(({ stream }) => {
        const row = rows.find((r) => r.user_id === user.id && r.recipient_id === stream.recipient_id) as Subscription;
        return buildSubscriptionPayload(stream, row, ctx, subscribers.get(stream.recipient_id));
      });
    tx.sendEventOnCommit({ type: "subscription", op: "add", subscriptions: subs }, [user.id]);
  }
  for (const stream of streams) {
    const newIds = added.filter((p) => p.stream.id === stream.id).map((p) => p.user.id);
    if (newIds.length === 0) continue;
    const peers = [...audienceAfter.get(stream.id)!].filter((id) => !newIds.includes(id));
    if (peers.length > 0) {
      tx.sendEventOnCommit({ type: "subscription", op: "peer_add", stream_ids: [stream.id], user_ids: [...newIds].sort((a, b) => a - b) }, peers);
    }
  }
}

// ---- unsubscribing (DELETE /users/me/subscriptions) ----

/** Zulip's remove_subscriptions_backend. */
export async function checkRemoveSubscriptions(
  tx: Tx,
  subject: AccessSubject,
  realm: Realm,
  names: readonly string[],
  principals: Principals | undefined,
): Promise<{ removed: string[]; not_removed: string[] }> {
  const user = subject.user;
  const targets = principals && principals.length > 0 ? await resolvePrincipals(tx, user, principals) : [user];
  const removingOthers = targets.some((t) => t.id !== user.id && !(t.is_bot && t.bot_owner_id === user.id));
  const stripped = names.map((n) => n.trim());
  for (const name of stripped) checkStreamName(name);
  const existing = await streamStore.listByNames(tx.q, realm.id, stripped);
  const byName = new Map(existing.map((s) => [s.name.toLowerCase(), s]));
  if (removingOthers && !isAdmin(user)) {
    for (const stream of existing) {
      if (!(await channelAccess(tx.q, subject, stream)).canRemoveSubscribers) throw new InsufficientPermissionError();
    }
  }
  const missing = stripped.filter((n) => !byName.has(n.toLowerCase()));
  if (missing.length > 0) throw badRequest(`Channel(s) (${missing.join(", ")}) do not exist`);
  const streams = [...new Map(stripped.map((n) => byName.get(n.toLowerCase())!).map((s) => [s.id, s])).values()];
  const { removed, notSubscribed } = await bulkRemoveSubscriptions(tx, realm, streams, targets, user);
  subject.forgetSubscriptions();
  return { removed: removed.map((p) => p.stream.name), not_removed: notSubscribed.map((p) => p.stream.name) };
}

/**
 * Zulip's bulk_remove_subscriptions: `subscription remove` to each user, `peer_remove` to those
 * who see the channel's subscribers, and `stream delete` to users who can no longer see it.
 */
async function bulkRemoveSubscriptions(
  tx: Tx,
  realm: Realm,
  streams: readonly Stream[],
  users: readonly User[],
  actor: User | null,
): Promise<{ removed: SubPair[]; notSubscribed: SubPair[] }> {
  const rows = await subscriptionStore.listForUsers(
    tx.q,
    users.map((u) => u.id),
    streams.map((s) => s.recipient_id),
  );
  const audienceBefore = await metadataAudience(tx.q, realm.id, streams);
  const guestAccessBefore = await snapshotGuestAccessAround(tx, realm, streams, users);
  const removed: SubPair[] = [];
  const notSubscribed: SubPair[] = [];
  const deactivate: number[] = [];
  const audit: AuditEntry[] = [];
  for (const user of users) {
    for (const stream of streams) {
      const row = rows.find((r) => r.user_id === user.id && r.recipient_id === stream.recipient_id && r.active);
      if (!row) {
        notSubscribed.push({ user, stream });
        continue;
      }
      deactivate.push(row.id);
      removed.push({ user, stream });
      audit.push({
        realm_id: realm.id,
        event_type: "subscription_deactivated",
        acting_user_id: actor?.id ?? null,
        modified_user_id: user.id,
        modified_stream_id: stream.id,
      });
    }
  }
  await subscriptionStore.setActive(tx.q, deactivate, false);
  await auditLogStore.insertMany(tx.q, audit);
  if (removed.length === 0) return { removed, notSubscribed };
  for (const user of new Set(removed.map((p) => p.user))) {
    const subs = removed.filter((p) => p.user === user).map(({ stream }) => ({ name: stream.name, stream_id: stream.id }));
    tx.sendEventOnCommit({ type: "subscription", op: "remove", subscriptions: subs }, [user.id]);
  }
  const audienceAfter = await metadataAudience(tx.q, realm.id, streams);
  for (const stream of streams) {
    const goneIds = removed
      .filter((p) => p.stream.id === stream.id)
      .map((p) => p.user.id)
      .sort((a, b) => a - b);
    if (goneIds.length === 0) continue;
    const peers = [...audienceAfter.get(stream.id)!].filter((id) => !goneIds.includes(id));
    if (peers.length > 0) tx.sendEventOnCommit({ type: "subscription", op: "peer_remove", stream_ids: [stream.id], user_ids: goneIds }, peers);
    const lostAccess = [...audienceBefore.get(stream.id)!].filter((id) => !audienceAfter.get(stream.id)!.has(id));
    sendStreamDeletion(tx, [stream], lostAccess);
  }
  await sendGuestAccessChanges(tx, realm, guestAccessBefore);
  return { removed, notSubscribed };
}

// ---- personal settings (POST /users/me/subscriptions/properties) ----

const BOOLEAN_PROPERTIES = [
  "in_home_view",
  "is_muted",
  "desktop_notifications",
  "audible_notifications",
  "push_notifications",
  "email_notifications",
  "pin_to_top",
  "wildcard_mentions_notify",
] as const;
type BooleanProperty = (typeof BOOLEAN_PROPERTIES)[number];

export interface SubscriptionPropertyChange {
  stream_id: number;
  property: string;
  value: boolean | string;
}

/** Every change is validated (value, channel, subscription) before the first write. */
export async function checkUpdateSubscriptionProperties(tx: Tx, subject: AccessSubject, changes: readonly SubscriptionPropertyChange[]): Promise<void> {
  const user = subject.user;
  for (const change of changes) {
    if (change.property === "color") {
      if (typeof change.value !== "string" || !HEX_COLOR.test(change.value)) throw badRequest("color is not a valid hex color code");
    } else if ((BOOLEAN_PROPERTIES as readonly string[]).includes(change.property)) {
      if (typeof change.value !== "boolean") throw badRequest(`${change.property} is not a boolean`);
    } else {
      throw badRequest(`Unknown subscription property: ${change.property}`);
    }
  }
  const planned: Array<{ sub: Subscription; stream: Stream; change: SubscriptionPropertyChange }> = [];
  for (const change of changes) {
    const stream = await streamStore.getById(tx.q, user.realm_id, change.stream_id);
    const access = stream && !stream.is_archived ? await channelAccess(tx.q, subject, stream) : null;
    if (!access?.canReadContent) throw new InvalidChannelIdError();
    const sub = await subscriptionStore.getActive(tx.q, user.id, stream!.recipient_id);
    if (!sub) throw badRequest(`Not subscribed to channel ID ${change.stream_id}`);
    planned.push({ sub, stream: stream!, change });
  }
  for (const { sub, stream, change } of planned) await doChangeSubscriptionProperty(tx, user, sub, stream, change.property, change.value);
}

/**
 * Zulip's do_change_subscription_property. is_muted is stored; in_home_view is its inverse, and
 * either one sends two events (in_home_view first, then is_muted), as Zulip since feature level 139.
 */
async function doChangeSubscriptionProperty(tx: Tx, user: User, sub: Subscription, stream: Stream, property: string, value: boolean | string): Promise<void> {
  const column = property === "in_home_view" ? "is_muted" : (property as Exclude<BooleanProperty, "in_home_view"> | "color");
  const stored = property === "in_home_view" ? !value : value;
  const dbValue = column === "color" ? (stored as string) : stored ? 1 : 0;
  await subscriptionStore.update(tx.q, sub.id, { [column]: dbValue });
  await auditLogStore.insert(tx.q, {
    realm_id: user.realm_id,
    event_type: "subscription_property_changed",
    acting_user_id: user.id,
    modified_user_id: user.id,
    modified_stream_id: stream.id,
    extra_data: { old_value: column === "color" ? sub.color : sub[column], new_value: stored, property: column },
  });
  if (column === "is_muted") {
    tx.sendEventOnCommit({ type: "subscription", op: "update", property: "in_home_view", value: !stored, stream_id: stream.id }, [user.id]);
  }
  tx.sendEventOnCommit({ type: "subscription", op: "update", property: column, value: stored, stream_id: stream.id }, [user.id]);
}
