import { nowSeconds } from "../util/time.js";
import { ApiError } from "../lib/errors.js";
import { createHash } from "node:crypto";
import type { AppContext } from "../appContext.js";
import { transaction } from "../appContext.js";
import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { ApnsClient } from "../lib/apns.js";
import { FcmClient } from "../lib/fcm.js";
import { postOutgoing } from "../lib/outgoingHttp.js";
import { serverSecret } from "../lib/serverSecret.js";
import { canAccessUser, restrictedUserAccess } from "../lib/access.js";
import { buildUserPayload, fakeEmail, INACCESSIBLE_USER_NAME, inaccessibleAvatarUrl } from "../lib/userPayload.js";
import { MessageFlag } from "../models/messageFlags.js";
import { userSettings } from "../models/userSettings.js";
import { type Message, messageStore } from "../store/messages.js";
import { type PushDevice, PushDeviceKind, pushDeviceStore } from "../store/pushDevices.js";
import { realmStore } from "../store/realms.js";
import { userMessageFlagStore, userMessageStore } from "../store/userMessages.js";
import { userStore } from "../store/users.js";
import type { NotificationTrigger } from "./notificationTriggers.js";
import { isReceiverIdle } from "./receiverIdle.js";
import { channelRecipientStore } from "../store/subscriptions.js";

/**
 * Mobile push notifications: straight to APNs/FCM where their credentials are configured
 * (PARLEY_APNS_*, PARLEY_FCM_*), otherwise through Zulip's push notification service (the "bouncer",
 * PARLEY_PUSH_BOUNCER_URL with this server's registration PARLEY_PUSH_ORG_ID/KEY), in its
 * protocol: devices are registered at /api/v1/remotes/push/register, notifications sent to
 * /api/v1/remotes/push/notify with Zulip's gcm_payload/apns_payload shapes.
 *
 * A message queues a job for each receiver with a registered device when it is a direct message,
 * mentions them, or is in a topic they follow. The job (after commit) sends if the message is still
 * unread, their settings want it, and either their enable_online_push_notifications is on (Zulip's
 * default) or they are idle (receiverIdle.ts: no event queue taking messages in any process, or
 * idle by presence); otherwise the push waits until their last queue goes away with the message
 * unacknowledged (receiver_went_idle). It then marks the message as having an active push
 * notification, which also keeps it from being pushed twice. Reading such a message anywhere
 * queues a "remove" notification.
 */
export const PUSH_NOTIFICATION_JOB = "push_notification";
export const PUSH_REMOVAL_JOB = "push_notification_remove";
export const PUSH_BOUNCER_DEVICE_JOB = "push_bouncer_device";

/** Called by doSendMessages with the receivers each message may notify (notificationTriggers). */
export async function queuePushNotifications(
  tx: Tx,
  sent: ReadonlyArray<{ message: Message; triggers: ReadonlyMap<number, NotificationTrigger> }>,
): Promise<void> {
  const userIds = new Set(sent.flatMap(({ triggers }) => [...triggers.keys()]));
  if (userIds.size === 0) return;
  const withDevices = await pushDeviceStore.usersWithDevices(tx.q, [...userIds]);
  const jobs = sent.flatMap(({ message, triggers }) =>
    [...triggers].filter(([userId]) => withDevices.has(userId)).map(([userId, trigger]) => ({ userId, messageId: message.id, trigger })),
  );
  await tx.enqueueJobs(PUSH_NOTIFICATION_JOB, jobs);
}

/** Called when messages become read: their active push notifications are withdrawn. */
export async function queuePushRemovals(tx: Tx, userId: number, messageIds: readonly number[]): Promise<void> {
  if (messageIds.length === 0) return;
  const flags = await userMessageStore.flagsFor(tx.q, userId, messageIds);
  const active = messageIds.filter((id) => ((flags.get(id) ?? 0) & MessageFlag.ACTIVE_MOBILE_PUSH_NOTIFICATION) !== 0);
  if (active.length === 0) return;
  await userMessageFlagStore.setFlag(tx.q, userId, active, MessageFlag.ACTIVE_MOBILE_PUSH_NOTIFICATION, false);
  await tx.enqueueJob(PUSH_REMOVAL_JOB, { userId, messageIds: [...active].sort((a, b) => a - b) });
}

function settingAllows(user: User, trigger: NotificationTrigger): boolean {
  const settings = userSettings(user);
  if (trigger === "followed_topic") return settings.enable_followed_topic_push_notifications;
  return settings.enable_offline_push_notifications;
}

/** Zulip's stable user/realm UUIDs for the bouncer, derived from this server's secret. */
function stableUuid(ctx: AppContext, kind: string, id: number): string {
  const hex = createHash("sha256").update(serverSecret(ctx.config.dataDir)).update(`:${kind}:${id}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

async function postToBouncer(ctx: AppContext, endpoint: string, body: string, contentType: string): Promise<void> {
  const bouncer = ctx.config.pushBouncer!;
  const response = await postOutgoing({
    url: `${bouncer.url}/api/v1/remotes/${endpoint}`,
    body,
    contentType,
    headers: { Authorization: "Basic " + Buffer.from(`${bouncer.orgId}:${bouncer.orgKey}`).toString("base64") },
    timeoutMs: 30_000,
    allowHosts: ctx.config.outgoing.allowHosts,
  });
  if (response.status < 200 || response.status >= 300) throw new Error(`push bouncer ${endpoint} answered ${response.status}: ${response.text.slice(0, 200)}`);
}

const directClients = new WeakMap<AppContext, { apns?: ApnsClient; fcm?: FcmClient }>();
function clientsOf(ctx: AppContext): { apns?: ApnsClient; fcm?: FcmClient } {
  let clients = directClients.get(ctx);
  if (!clients) {
    clients = { apns: ctx.config.apns ? new ApnsClient(ctx.config.apns) : undefined, fcm: ctx.config.fcm ? new FcmClient(ctx.config.fcm) : undefined };
    directClients.set(ctx, clients);
  }
  return clients;
}

/** Whether any way of delivering pushes is configured. */
function pushConfigured(ctx: AppContext): boolean {
  return ctx.config.pushBouncer !== undefined || ctx.config.apns !== undefined || ctx.config.fcm !== undefined;
}

interface PushPayloads {
  gcm: Record<string, unknown>;
  gcmPriority: "high" | "normal";
  apns: { alert?: object; sound?: string; badge: number; custom: { zulip: object } };
}

/**
 * Delivers to each device: straight to APNs/FCM where their credentials are configured, the rest
 * through the push bouncer. A device Apple or Google reports as gone is unregistered.
 */
async function deliverPush(ctx: AppContext, user: User, realmId: number, devices: PushDevice[], payloads: PushPayloads): Promise<void> {
  const { apns, fcm } = clientsOf(ctx);
  const timeoutMs = 30_000;
  const viaBouncer: PushDevice[] = [];
  for (const device of devices) {
    if (device.kind === PushDeviceKind.APNS && apns) {
      const { alert, sound, badge, custom } = payloads.apns;
      const result = await apns.send(
        device.token,
        device.ios_app_id ?? "org.zulip.Zulip",
        { aps: { ...(alert ? { alert, sound } : {}), badge }, ...custom },
        timeoutMs,
      );
      if (result.status === 410 || result.reason === "BadDeviceToken" || result.reason === "Unregistered")
        await pushDeviceStore.remove(ctx.db.kysely, user.id, device.kind, device.token);
      else if (result.status !== 200) throw new Error(`APNs answered ${result.status} ${result.reason ?? ""}`);
    } else if (device.kind === PushDeviceKind.FCM && fcm) {
      const result = await fcm.send(device.token, payloads.gcm, payloads.gcmPriority, timeoutMs);
      if (result.status === 404 || result.error === "UNREGISTERED") await pushDeviceStore.remove(ctx.db.kysely, user.id, device.kind, device.token);
      else if (result.status !== 200) throw new Error(`FCM answered ${result.status} ${result.error ?? ""}`);
    } else {
      viaBouncer.push(device);
    }
  }
  if (viaBouncer.length === 0 || !ctx.config.pushBouncer) return;
  await postToBouncer(
    ctx,
    "push/notify",
    JSON.stringify({
      user_uuid: stableUuid(ctx, "user", user.id),
      user_id: user.id,
      realm_uuid: stableUuid(ctx, "realm", realmId),
      android_devices: viaBouncer.filter((d) => d.kind === PushDeviceKind.FCM).map((d) => d.token),
      apple_devices: viaBouncer.filter((d) => d.kind === PushDeviceKind.APNS).map((d) => d.token),
      gcm_payload: payloads.gcm,
      gcm_options: { priority: payloads.gcmPriority },
      apns_payload: payloads.apns,
    }),
    "application/json",
  );
}

function realmFields(ctx: AppContext, realm: Realm, user: User) {
  return {
    server: new URL(ctx.config.externalUrl).host,
    realm_id: realm.id,
    realm_name: realm.name,
    realm_uri: ctx.config.externalUrl,
    realm_url: ctx.config.externalUrl,
    user_id: user.id,
  };
}

/** Plain text of rendered HTML, cut to Zulip's 200 characters. */
function notificationText(html: string): { content: string; truncated: boolean } {
  const text = html
    .replace(/<[^>]*>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .trim();
  return text.length > 200 ? { content: text.slice(0, 200) + "…", truncated: true } : { content: text, truncated: false };
}

/** Job: send one message's notification to the receiver's devices through the bouncer. */
export async function sendPushNotification(
  ctx: AppContext,
  job: { userId: number; messageId: number; trigger: NotificationTrigger; idle?: boolean },
): Promise<void> {
  if (!pushConfigured(ctx)) return;
  const q = ctx.db.kysely;
  const user = await userStore.getById(q, job.userId);
  if (!user || !user.is_active || !settingAllows(user, job.trigger)) return;
  const flags = (await userMessageStore.flagsFor(q, user.id, [job.messageId])).get(job.messageId);
  if (flags === undefined || flags & (MessageFlag.READ | MessageFlag.ACTIVE_MOBILE_PUSH_NOTIFICATION)) return; // read, or pushed already
  const realm = await realmStore.getById(q, user.realm_id);
  if (!realm) return;
  // On Zulip with online pushes off: the open client shows it (pushed if the user goes idle first).
  if (!job.idle && !userSettings(user).enable_online_push_notifications && !(await isReceiverIdle(ctx, realm, user.id))) return;
  const [message] = await messageStore.listByIds(q, user.realm_id, [job.messageId]);
  const devices = await pushDeviceStore.listForUser(q, user.id);
  const sender = message ? await userStore.getById(q, message.sender_id) : undefined;
  if (!message || !sender || !realm || devices.length === 0) return;

  const text = notificationText(message.rendered_content ?? message.content);
  // A guest restricted by can_access_all_users_group may get a channel message from a sender he
  // may not access (one who posts without being subscribed): Zulip's can_access_sender=False
  // shows "Unknown user". A direct message makes its sender accessible.
  const hidden = message.is_channel_message === 1 && !canAccessUser(await restrictedUserAccess(q, user, realm), sender);
  const senderName = hidden ? INACCESSIBLE_USER_NAME : sender.full_name;
  const common = {
    ...realmFields(ctx, realm, user),
    sender_id: sender.id,
    sender_email: hidden ? fakeEmail(sender.id, ctx.config.externalUrl) : sender.email,
    sender_full_name: senderName,
    sender_avatar_url: hidden ? inaccessibleAvatarUrl(ctx.config.externalUrl) : buildUserPayload(user, sender, { clientGravatar: false }).avatar_url,
  };
  let recipient: Record<string, unknown>;
  let title: string;
  if (message.is_channel_message) {
    const [stream] = await channelRecipientStore.streamsByRecipientIds(q, realm.id, [message.recipient_id]);
    recipient = { recipient_type: "stream", stream: stream?.name ?? "", stream_id: stream?.id ?? 0, topic: message.subject };
    title = `#${stream?.name ?? ""} > ${message.subject}`;
  } else {
    const participants = (await userMessageFlagStore.receiversByMessage(q, [message.id])).get(message.id) ?? [];
    recipient = participants.length > 2 ? { recipient_type: "private", pm_users: participants.join(",") } : { recipient_type: "private" };
    title = participants.length > 2 ? `Group DM with ${participants.length - 1} others` : sender.full_name;
  }
  const subtitle =
    job.trigger === "mentioned"
      ? `${senderName} mentioned you:`
      : job.trigger.endsWith("wildcard_mentioned")
        ? `${senderName} mentioned everyone:`
        : message.is_channel_message
          ? `${senderName}:`
          : "";
  const gcmPayload = {
    ...common,
    ...recipient,
    event: "message",
    zulip_message_id: message.id,
    time: message.date_sent,
    content: text.content,
    content_truncated: text.truncated,
  };
  const apnsPayload = {
    alert: { title, subtitle, body: text.content },
    sound: "default",
    badge: 0,
    custom: { zulip: { ...common, ...recipient, message_ids: [message.id], time: message.date_sent } },
  };
  await deliverPush(ctx, user, realm.id, devices, { gcm: gcmPayload, gcmPriority: "high", apns: apnsPayload });
  await transaction(ctx, async (tx) => {
    const current = (await userMessageStore.flagsFor(tx.q, user.id, [message.id])).get(message.id) ?? 0;
    if ((current & MessageFlag.READ) === 0) await userMessageFlagStore.setFlag(tx.q, user.id, [message.id], MessageFlag.ACTIVE_MOBILE_PUSH_NOTIFICATION, true);
  });
}

/** Job: withdraw notifications of messages that were read. */
export async function sendPushRemoval(ctx: AppContext, job: { userId: number; messageIds: number[] }): Promise<void> {
  if (!pushConfigured(ctx) || job.messageIds.length === 0) return;
  const q = ctx.db.kysely;
  const user = await userStore.getById(q, job.userId);
  const realm = user ? await realmStore.getById(q, user.realm_id) : undefined;
  const devices = user ? await pushDeviceStore.listForUser(q, user.id) : [];
  if (!user || !realm || devices.length === 0) return;
  const fields = { ...realmFields(ctx, realm, user), event: "remove" };
  await deliverPush(ctx, user, realm.id, devices, {
    gcm: { ...fields, zulip_message_ids: job.messageIds.join(","), zulip_message_id: job.messageIds[0] },
    gcmPriority: "normal",
    apns: { badge: 0, custom: { zulip: { ...fields, zulip_message_ids: job.messageIds } } },
  });
}

/** Job: register or remove a device at the bouncer. */
export async function syncBouncerDevice(
  ctx: AppContext,
  job: { op: "register" | "unregister"; userId: number; kind: number; token: string; appId: string | null },
): Promise<void> {
  if (!ctx.config.pushBouncer) return;
  const user = await userStore.getById(ctx.db.kysely, job.userId);
  if (!user) return;
  const form = new URLSearchParams({
    user_id: String(user.id),
    user_uuid: stableUuid(ctx, "user", user.id),
    realm_uuid: stableUuid(ctx, "realm", user.realm_id),
    token: job.token,
    token_kind: String(job.kind),
  });
  if (job.appId) form.set("ios_app_id", job.appId);
  await postToBouncer(ctx, `push/${job.op}`, form.toString(), "application/x-www-form-urlencoded");
}

/**
 * POST /mobile_push/test_notification (Zulip's send_test_push_notification_api): a "test"
 * notification, now, to the device with `token` or to all of the user's devices. As in Zulip, a
 * server without push configured accepts it and sends nothing.
 */
export async function sendTestPushNotification(ctx: AppContext, user: User, realm: Realm, token: string | undefined): Promise<void> {
  const all = await pushDeviceStore.listForUser(ctx.db.kysely, user.id);
  const devices = token === undefined ? all : all.filter((d) => d.token === token);
  if (token !== undefined && devices.length === 0) throw new ApiError("Device not recognized", { code: "INVALID_PUSH_DEVICE_TOKEN" });
  if (!pushConfigured(ctx) || devices.length === 0) return;
  const fields = { ...realmFields(ctx, realm, user), event: "test", time: nowSeconds() };
  await deliverPush(ctx, user, realm.id, devices, {
    gcm: fields,
    gcmPriority: "high",
    apns: {
      alert: { title: "Test notification", body: `This is a test notification from ${realm.name} (${ctx.config.externalUrl}).` },
      sound: "default",
      badge: 0,
      custom: { zulip: fields },
    },
  });
}
