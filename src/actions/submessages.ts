import type { User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../lib/errors.js";
import { accessMessageForModification } from "../lib/messageAccess.js";
import { AccessSubject } from "../lib/streamAccess.js";
import { checkWidgetData, widgetFromContent, widgetTypeOf } from "../lib/widgets.js";
import { messageEditStore } from "../store/messageEdits.js";
import { type Message } from "../store/messages.js";
import { submessageStore } from "../store/submessages.js";
import { userMessageStore } from "../store/userMessages.js";
import { defined } from "../util/defined.js";

export interface SubmessageRequest {
  messageId: number;
  msgType: string;
  content: string;
}

/**
 * POST /submessage (Zulip's process_submessage): a change to the message's widget (a vote, a new
 * option or task, a strike) from anyone who may read it, once its sender attached the first.
 */
export async function checkAddSubmessage(tx: Tx, user: User, req: SubmessageRequest): Promise<void> {
  // The row lock makes "the sender attaches first" race-free, as Zulip's lock_message does.
  await messageEditStore.lock(tx.q, req.messageId);
  const { message } = await accessMessageForModification(tx.q, new AccessSubject(user), req.messageId);
  if (message.sender_id !== user.id && !(await submessageStore.anyFrom(tx.q, message.id, message.sender_id))) {
    throw badRequest("You cannot attach a submessage to this message.");
  }
  let data: unknown;
  try {
    data = JSON.parse(req.content);
  } catch {
    throw badRequest("Invalid json for submessage");
  }
  const widget = widgetTypeOf(await submessageStore.widgetContent(tx.q, message.id));
  if (widget !== null) checkWidgetData(widget, data, message.sender_id === user.id);
  await doAddSubmessage(tx, user.id, message, req.msgType, req.content);
}

/** Stores the submessage and tells everyone who received the message (Zulip's do_add_submessage). */
async function doAddSubmessage(tx: Tx, senderId: number, message: Message, msgType: string, content: string): Promise<void> {
  const [row] = await submessageStore.insertMany(tx.q, [{ message_id: message.id, sender_id: senderId, msg_type: msgType, content }]);
  const receivers = await userMessageStore.userIdsFor(tx.q, message.id);
  tx.sendEventOnCommit(
    { type: "submessage", msg_type: msgType, message_id: message.id, submessage_id: defined(row, "the inserted submessage").id, sender_id: senderId, content },
    receivers,
  );
}

/** The "widget" submessages that messages being sent create from their content (Zulip's do_widget_post_save_actions). */
export async function insertWidgetSubmessages(tx: Tx, senderId: number, sent: ReadonlyArray<{ message: Message; content: string }>) {
  const rows = sent.flatMap(({ message, content }) => {
    const widget = widgetFromContent(content);
    return widget ? [{ message_id: message.id, sender_id: senderId, msg_type: "widget", content: JSON.stringify(widget) }] : [];
  });
  return submessageStore.insertMany(tx.q, rows);
}
