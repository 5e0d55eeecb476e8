import { type User } from "../db/schema.js";
import { type Executor } from "../db/tx.js";
import { RecipientType } from "../models/roles.js";
import { type ScheduledMessageWithRecipient, scheduledMessageStore } from "../store/scheduledMessages.js";

export type ScheduledRecipientType = "stream" | "private";

/** Zulip's ScheduledMessage.to_dict: the GET /scheduled_messages and event form. */
export type ScheduledMessageDict =
  | {
      scheduled_message_id: number;
      to: number;
      type: "stream";
      content: string;
      rendered_content: string;
      topic: string;
      scheduled_delivery_timestamp: number;
      failed: boolean;
    }
  | {
      scheduled_message_id: number;
      to: number[];
      type: "private";
      content: string;
      rendered_content: string;
      scheduled_delivery_timestamp: number;
      failed: boolean;
    };

export function buildScheduledMessageDict(row: ScheduledMessageWithRecipient): ScheduledMessageDict {
  const { type, to } = scheduledRecipientIds(row);
  const id = row.id;
  const { content, rendered_content } = row;
  const scheduled_delivery_timestamp = row.scheduled_timestamp;
  const failed = row.failed === 1;
  if (type === "private") return { scheduled_message_id: id, to, type, content, rendered_content, scheduled_delivery_timestamp, failed };
  return { scheduled_message_id: id, to: row.recipient_type_id, type, content, rendered_content, topic: row.subject, scheduled_delivery_timestamp, failed };
}

/** GET /scheduled_messages and POST /register's `scheduled_messages`: the user's undelivered ones. */
export async function listScheduledMessages(q: Executor, user: User): Promise<ScheduledMessageDict[]> {
  return (await scheduledMessageStore.listUndelivered(q, user.realm_id, user.id)).map(buildScheduledMessageDict);
}

/** The API's type names: "direct" is "private", "channel" is "stream" (Zulip's views). */
export function recipientTypeName(type: "direct" | "private" | "stream" | "channel"): ScheduledRecipientType {
  return type === "direct" || type === "private" ? "private" : "stream";
}

/** Zulip's get_recipient_ids: a channel's id, or the other participants of a direct message. */
export function scheduledRecipientIds(row: ScheduledMessageWithRecipient): { type: ScheduledRecipientType; to: number[] } {
  if (row.recipient_type === RecipientType.STREAM) return { type: "stream", to: [row.recipient_type_id] };
  if (row.recipient_type === RecipientType.PERSONAL) return { type: "private", to: [row.recipient_type_id] };
  const members = (row.member_key ?? "")
    .split(",")
    .filter((id) => id !== "")
    .map(Number);
  return { type: "private", to: members.filter((id) => id !== row.sender_id).sort((a, b) => a - b) };
}
