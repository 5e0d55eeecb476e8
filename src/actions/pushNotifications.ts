import { nowSeconds } from "../util/time.js";
import { deliverPush, pushConfigured, realmFields } from "../lib/pushDelivery.js";
import { ApiError } from "../lib/errors.js";
import type { AppContext } from "../appContext.js";
import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { MessageFlag } from "../models/messageFlags.js";
import { type Message } from "../store/messages.js";
import { pushDeviceStore } from "../store/pushDevices.js";
import { userMessageFlagStore, userMessageStore } from "../store/userMessages.js";
import type { NotificationTrigger } from "./notificationTriggers.js";
import { realmUrl } from "../lib/realms.js";

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
      alert: { title: "Test notification", body: `This is a test notification from ${realm.name} (${realmUrl(ctx.config, realm)}).` },
      sound: "default",
      badge: 0,
      custom: { zulip: fields },
    },
  });
}
