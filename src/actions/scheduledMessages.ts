import type { Realm, User } from "../db/schema.js";
import type { Executor, Tx } from "../db/tx.js";
import { ApiError, badRequest } from "../lib/errors.js";
import { type ScheduledRecipientType, type ScheduledMessageDict, buildScheduledMessageDict, scheduledRecipientIds } from "../lib/scheduledMessagePayload.js";
import { scheduledMessageStore, type ScheduledMessage } from "../store/scheduledMessages.js";
import { nowSeconds } from "../util/time.js";
import { normalizeTopic } from "../lib/messageText.js";
import { checkMessage, defaultReadBySender, type CheckedMessage } from "./messageSend.js";

/**
 * Scheduled messages (Zulip's zerver/actions/scheduled_messages.py). Every rule of sending is
 * checked through the send path when a message is scheduled or edited, and again when it is
 * delivered, as if its sender sent it then.
 *
 * Delivery is a durable job per scheduled time: scheduling writes the row and a job due at its
 * time in one transaction; a new time adds another job. A job delivers whatever is due under a
 * row lock, so a job whose time was edited away finds nothing due and does nothing, and a
 * message is never sent twice. Jobs survive restarts: one due while the server was down runs
 * when it starts (within Zulip's late cutoff, after which the message is marked failed).
 */

export const SCHEDULED_MESSAGE_JOB = "scheduled_message";

class ScheduledMessageNotFoundError extends ApiError {
  constructor() {
    super("Scheduled message does not exist", { status: 404 });
  }
}

/** Zulip's DeliveryTimeNotInFutureError. */
function deliveryTimeNotInFuture(): ApiError {
  return badRequest("Scheduled delivery time must be in the future.");
}

/** Zulip's extract_stream_id. */
function extractStreamId(to: number | number[]): number {
  if (Array.isArray(to)) throw badRequest("Invalid data type for channel ID");
  return to;
}

/** Zulip's extract_direct_message_recipient_ids. */
function extractDirectMessageRecipientIds(to: number | number[]): number[] {
  if (!Array.isArray(to)) throw badRequest("Invalid data type for recipients");
  return [...new Set(to)];
}

function extractRecipient(type: ScheduledRecipientType, to: number | number[]): number | number[] {
  return type === "stream" ? extractStreamId(to) : extractDirectMessageRecipientIds(to);
}

/** Zulip's access_scheduled_message: the user's own, else 404 (missing and foreign look alike). */
async function accessScheduledMessage(tx: Tx, user: User, id: number): Promise<ScheduledMessage> {
  const row = await scheduledMessageStore.lock(tx.q, tx.dialect, id);
  if (!row || row.sender_id !== user.id || row.realm_id !== user.realm_id) throw new ScheduledMessageNotFoundError();
  return row;
}

export async function dictById(q: Executor, id: number): Promise<ScheduledMessageDict> {
  return buildScheduledMessageDict((await scheduledMessageStore.getWithRecipient(q, id))!);
}

export interface ScheduleMessageRequest {
  type: ScheduledRecipientType;
  to: number | number[];
  topic: string | undefined;
  content: string;
  deliverAt: number;
  readBySender: boolean | undefined;
  clientName: string;
}

/** POST /scheduled_messages (Zulip's check_schedule_message + do_schedule_messages). */
export async function checkScheduleMessage(tx: Tx, sender: User, realm: Realm, req: ScheduleMessageRequest): Promise<number> {
  if (req.deliverAt <= nowSeconds()) throw deliveryTimeNotInFuture();
  const to = extractRecipient(req.type, req.to);
  const checked = await checkMessage(tx, sender, realm, { type: req.type, to, topic: req.topic, content: req.content });
  // Zulip's legacy default: read for its sender when sent from Zulip's own apps, unless to oneself.
  const toSelf = checked.destination.kind === "direct" && checked.destination.recipientId === sender.recipient_id;
  const readBySender = req.readBySender ?? (defaultReadBySender(req.clientName) && !toSelf);
  const id = await scheduledMessageStore.insert(tx.q, {
    realm_id: realm.id,
    sender_id: sender.id,
    recipient_id: checked.destination.recipientId,
    subject: topicOf(checked),
    content: checked.content,
    rendered_content: checked.rendered.html,
    scheduled_timestamp: req.deliverAt,
    read_by_sender: readBySender ? 1 : 0,
    sending_client: req.clientName,
  });
  await enqueueDelivery(tx, id, req.deliverAt);
  tx.sendEventOnCommit({ type: "scheduled_messages", op: "add", scheduled_messages: [await dictById(tx.q, id)] }, [sender.id]);
  return id;
}

function topicOf(checked: CheckedMessage): string {
  return checked.destination.kind === "channel" ? checked.destination.topic : "";
}

async function enqueueDelivery(tx: Tx, id: number, runAt: number): Promise<void> {
  // Many attempts: a failed attempt (the database briefly unreachable) is retried within minutes,
  // well inside the late cutoff; a delivery that fails by the rules is recorded, not retried.
  await tx.enqueueJob(SCHEDULED_MESSAGE_JOB, { scheduled_message_id: id }, { runAt, maxAttempts: 10 });
}

export interface EditScheduledMessageRequest {
  type: ScheduledRecipientType | undefined;
  to: number | number[] | undefined;
  topic: string | undefined;
  content: string | undefined;
  deliverAt: number | undefined;
  clientName: string;
}

/** Zulip's update_scheduled_message_backend checks, before the message is looked up. */
export function checkEditRequest(req: EditScheduledMessageRequest): void {
  if (req.type === undefined && req.to === undefined && req.topic === undefined && req.content === undefined && req.deliverAt === undefined) {
    throw badRequest("Nothing to change");
  }
  if (req.type !== undefined && req.to === undefined) throw badRequest("Recipient required when updating type of scheduled message.");
  if (req.type === "stream" && req.topic === undefined) throw badRequest("Topic required when updating scheduled message type to stream.");
  if (req.deliverAt !== undefined && req.deliverAt <= nowSeconds()) throw deliveryTimeNotInFuture();
}

/** PATCH /scheduled_messages/{id} (Zulip's edit_scheduled_message). */
export async function checkEditScheduledMessage(tx: Tx, sender: User, realm: Realm, id: number, req: EditScheduledMessageRequest): Promise<void> {
  checkEditRequest(req);
  const row = await accessScheduledMessage(tx, sender, id);
  if (row.delivered === 1) throw badRequest("Scheduled message was already sent");
  // A message the server failed to send needs a new time.
  if (row.failed === 1 && req.deliverAt === undefined) throw deliveryTimeNotInFuture();
  const existing = scheduledRecipientIds((await scheduledMessageStore.getWithRecipient(tx.q, id))!);

  // A new recipient or content is checked again through the send path, with what is unchanged.
  let checked: CheckedMessage | undefined;
  if (req.type !== undefined || req.to !== undefined || req.content !== undefined) {
    const type = req.type ?? existing.type;
    const to = req.to !== undefined ? extractRecipient(type, req.to) : type === "stream" ? existing.to[0] : existing.to;
    const topic = req.topic ?? row.subject;
    checked = await checkMessage(tx, sender, realm, { type, to, topic, content: req.content ?? row.content });
  }

  const changes: Partial<ScheduledMessage> = { sending_client: req.clientName };
  if (req.type !== undefined || req.to !== undefined) {
    changes.recipient_id = checked!.destination.recipientId;
    changes.subject = topicOf(checked!);
  } else if (req.topic !== undefined && existing.type === "stream") {
    // A new topic alone; topics sent for direct messages are ignored.
    changes.subject = normalizeTopic(realm, req.topic);
  }
  if (req.content !== undefined) {
    changes.content = checked!.content;
    changes.rendered_content = checked!.rendered.html;
  }
  if (req.deliverAt !== undefined) {
    changes.scheduled_timestamp = req.deliverAt;
    await enqueueDelivery(tx, id, req.deliverAt);
  }
  if (row.failed === 1) {
    changes.failed = 0;
    changes.failure_message = null;
  }
  await scheduledMessageStore.update(tx.q, id, changes);
  tx.sendEventOnCommit({ type: "scheduled_messages", op: "update", scheduled_message: await dictById(tx.q, id) }, [sender.id]);
}

/** DELETE /scheduled_messages/{id} (Zulip's delete_scheduled_message). */
export async function doDeleteScheduledMessage(tx: Tx, user: User, id: number): Promise<void> {
  const row = await accessScheduledMessage(tx, user, id);
  await scheduledMessageStore.delete(tx.q, row.id);
  // A pending delivery job finds no row and does nothing.
  tx.sendEventOnCommit({ type: "scheduled_messages", op: "remove", scheduled_message_id: row.id }, [user.id]);
}
