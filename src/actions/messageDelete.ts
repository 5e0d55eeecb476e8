import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../lib/errors.js";
import { accessMessageForModification, eventRecipientIdsForMessage } from "../lib/messageAccess.js";
import { hasRealmPermission } from "../lib/realmPermissions.js";
import { realmSettings } from "../models/realmSettings.js";
import { AccessSubject } from "../lib/streamAccess.js";
import { isGuest } from "../models/roles.js";
import { type Message } from "../store/messages.js";
import { userStore } from "../store/users.js";
import { nowSeconds } from "../util/time.js";
import { prepareMessageDeletion } from "./attachments.js";
import type { DeleteMessageEvent, SpectatorAudience } from "../events/types.js";
import { channelRecipientStore } from "../store/subscriptions.js";
import { messageSearchStore } from "../store/messageSearch.js";
import { messageEditStore } from "../store/messageEdits.js";

/** Zulip 10.2's default message_content_delete_limit_seconds (null: no limit). */

/** DELETE /messages/{id} (Zulip's delete_message_backend). */
export async function checkDeleteMessage(tx: Tx, user: User, realm: Realm, messageId: number): Promise<void> {
  const subject = new AccessSubject(user);
  await messageEditStore.lock(tx.q, messageId);
  const { message } = await accessMessageForModification(tx.q, subject, messageId);
  await checkCanDeleteMessage(tx, subject, realm, message);
  await doDeleteMessages(tx, realm, [message], user);
}

/** Zulip's validate_can_delete_message. */
async function checkCanDeleteMessage(tx: Tx, subject: AccessSubject, realm: Realm, message: Message): Promise<void> {
  const user = subject.user;
  if (!isGuest(user) && (await hasRealmPermission(tx.q, subject, realm, "can_delete_any_message_group"))) return;
  const denied = () => badRequest("You don't have permission to delete this message");
  if (message.sender_id !== user.id) {
    const [sender] = await userStore.listByIds(tx.q, realm.id, [message.sender_id]);
    if (sender?.bot_owner_id !== user.id) throw denied();
  }
  if (!(await hasRealmPermission(tx.q, subject, realm, "can_delete_own_message_group"))) throw denied();
  const limit = realmSettings(realm).message_content_delete_limit_seconds;
  if (limit !== null && nowSeconds() - message.date_sent > limit) throw badRequest("The time limit for deleting this message has passed");
}

/**
 * Deletes messages of one conversation with their reactions, submessages, attachment links and
 * per-user rows, keeps the channel's first_message_id right, and tells everyone who could see
 * them (and the acting user) with one delete_message event in the bulk_message_deletion shape.
 */
export async function doDeleteMessages(tx: Tx, realm: Realm, messages: readonly Message[], actingUser: User | null): Promise<void> {
  const [first] = messages;
  if (first === undefined) return;
  const ids = messages.map((m) => m.id).sort((a, b) => a - b);
  const audience = new Set(await eventRecipientIdsForMessage(tx.q, first));
  if (actingUser) audience.add(actingUser.id);
  const [stream] = first.is_channel_message ? await channelRecipientStore.streamsByRecipientIds(tx.q, realm.id, [first.recipient_id]) : [];
  const event: DeleteMessageEvent & { spectators?: SpectatorAudience } = stream
    ? { type: "delete_message", message_ids: ids, message_type: "stream", stream_id: stream.id, topic: first.subject, spectators: { realm_id: realm.id } }
    : { type: "delete_message", message_ids: ids, message_type: "private" };

  await messageSearchStore.unindex(tx.q, ids);
  const releaseUploads = await prepareMessageDeletion(tx, ids);
  await messageEditStore.deleteMessages(tx.q, ids);
  await releaseUploads();
  if (stream && stream.first_message_id !== null && ids.includes(stream.first_message_id)) {
    await messageEditStore.resetStreamFirstMessageId(tx.q, stream.id, stream.recipient_id);
  }
  tx.sendEventOnCommit(event, audience);
}
