import { DELETE_BLOBS_JOB, THUMBNAIL_JOB, UNCLAIMED_UPLOAD_JOB } from "../actions/attachments.js";
import { MISSED_MESSAGE_EMAIL_JOB } from "../actions/missedMessageEmails.js";
import { MESSAGE_RETENTION_JOB } from "../actions/messageRetention.js";
import { OUTGOING_WEBHOOK_JOB } from "../actions/outgoingWebhooks.js";
import { PUSH_BOUNCER_DEVICE_JOB, PUSH_NOTIFICATION_JOB, PUSH_REMOVAL_JOB } from "../actions/pushNotifications.js";
import { REALM_EXPORT_JOB } from "../actions/realmExport.js";
import { RECEIVER_WENT_IDLE_JOB } from "../actions/receiverIdle.js";
import { SCHEDULED_MESSAGE_JOB } from "../actions/scheduledMessages.js";
import { URL_PREVIEW_JOB } from "../actions/urlPreviews.js";
import { deliverEmail } from "./email.js";
import { deleteIfUnclaimed, deleteUploadBlobs, makeThumbnail } from "./attachments.js";
import { sendMissedMessageEmails } from "./missedMessageEmails.js";
import { runMessageRetention } from "./messageRetention.js";
import { deliverOutgoingWebhook } from "./outgoingWebhooks.js";
import { RENDER_PROFILE_FIELD_VALUES_JOB, renderStoredProfileFieldValues } from "./profileFieldRendering.js";
import { sendPushNotification, sendPushRemoval, syncBouncerDevice } from "./pushNotifications.js";
import { runRealmExport } from "./realmExport.js";
import { notifyReceiverWentIdle } from "./receiverIdle.js";
import type { JobRunner } from "./runner.js";
import { deliverScheduledMessage } from "./scheduledMessages.js";
import { fetchUrlPreviews } from "./urlPreviews.js";

/** Registers every kind of durable job this process can run. */
export function registerJobHandlers(runner: JobRunner): void {
  runner.register("email", deliverEmail);
  runner.register(SCHEDULED_MESSAGE_JOB, deliverScheduledMessage);
  runner.register(DELETE_BLOBS_JOB, deleteUploadBlobs);
  runner.register(UNCLAIMED_UPLOAD_JOB, deleteIfUnclaimed);
  runner.register(THUMBNAIL_JOB, makeThumbnail);
  runner.register(MESSAGE_RETENTION_JOB, runMessageRetention);
  runner.register(OUTGOING_WEBHOOK_JOB, deliverOutgoingWebhook);
  runner.register(PUSH_NOTIFICATION_JOB, sendPushNotification);
  runner.register(PUSH_REMOVAL_JOB, sendPushRemoval);
  runner.register(PUSH_BOUNCER_DEVICE_JOB, syncBouncerDevice);
  runner.register(MISSED_MESSAGE_EMAIL_JOB, sendMissedMessageEmails);
  runner.register(RECEIVER_WENT_IDLE_JOB, notifyReceiverWentIdle);
  runner.register(URL_PREVIEW_JOB, fetchUrlPreviews);
  runner.register(REALM_EXPORT_JOB, runRealmExport);
  runner.register(RENDER_PROFILE_FIELD_VALUES_JOB, renderStoredProfileFieldValues);
}
