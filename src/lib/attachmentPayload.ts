import { type User } from "../db/schema.js";
import { type Executor } from "../db/tx.js";
import { type Attachment, attachmentStore } from "../store/attachments.js";

export interface AttachmentPayload {
  id: number;
  name: string;
  path_id: string;
  size: number;
  create_time: number;
  messages: { id: number; date_sent: number }[];
}

/** GET /attachments: the user's uploads, and the bytes the whole realm uses. */
export async function getUserAttachments(q: Executor, user: User): Promise<{ attachments: AttachmentPayload[]; upload_space_used: number }> {
  const rows = await attachmentStore.listByOwner(q, user.id);
  const linked = await attachmentStore.linkedMessages(
    q,
    rows.map((a) => a.id),
  );
  return {
    attachments: rows.map((a) => buildAttachmentPayload(a, linked.get(a.id) ?? [])),
    upload_space_used: await attachmentStore.realmSpaceUsed(q, user.realm_id),
  };
}

export function buildAttachmentPayload(attachment: Attachment, messages: { id: number; date_sent: number }[]): AttachmentPayload {
  return {
    id: attachment.id,
    name: attachment.file_name,
    path_id: attachment.path_id,
    size: attachment.size,
    create_time: attachment.create_time * 1000,
    messages: messages.map((m) => ({ id: m.id, date_sent: m.date_sent * 1000 })),
  };
}
