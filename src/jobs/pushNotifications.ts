import { deliverPush, postToBouncer, pushConfigured, realmFields, stableUuid } from "../lib/pushDelivery.js";
import type { AppContext } from "../appContext.js";
import { transaction } from "../appContext.js";
import type { User } from "../db/schema.js";
import { canAccessUser, restrictedUserAccess } from "../lib/access.js";
import { buildUserPayload, fakeEmail, INACCESSIBLE_USER_NAME, inaccessibleAvatarUrl } from "../lib/userPayload.js";
import { MessageFlag } from "../models/messageFlags.js";
import { userSettings } from "../models/userSettings.js";
import { messageStore } from "../store/messages.js";
import { pushDeviceStore } from "../store/pushDevices.js";
import { realmStore } from "../store/realms.js";
import { userMessageFlagStore, userMessageStore } from "../store/userMessages.js";
import { userStore } from "../store/users.js";
import type { NotificationTrigger } from "../actions/notificationTriggers.js";
import { isReceiverIdle } from "../actions/receiverIdle.js";
import { channelRecipientStore } from "../store/subscriptions.js";
import { realmUrl } from "../lib/realms.js";

// The push jobs that actions/pushNotifications.ts and actions/pushDevices.ts queue.

function settingAllows(user: User, trigger: NotificationTrigger): boolean {
  const settings = userSettings(user);
  if (trigger === "followed_topic") return settings.enable_followed_topic_push_notifications;
  return settings.enable_offline_push_notifications;
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
    sender_email: hidden ? fakeEmail(sender.id, realmUrl(ctx.config, realm)) : sender.email,
    sender_full_name: senderName,
    sender_avatar_url: hidden ? inaccessibleAvatarUrl(realmUrl(ctx.config, realm)) : buildUserPayload(user, sender, { clientGravatar: false }).avatar_url,
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
