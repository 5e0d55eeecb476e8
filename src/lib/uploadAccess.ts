import type { Realm, User } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { type Attachment, attachmentStore } from "../store/attachments.js";
import { accessMessages, accessMessagesAsVisitor } from "./messageAccess.js";
import { pathIdFromLinkedPath } from "./uploadFiles.js";
import { AccessSubject, realmLetsVisitorsIn } from "./streamAccess.js";

/**
 * THE place that decides who may read an uploaded file (SECURITY.md, "Uploads"): its uploader,
 * and anyone who may read a message that links it (messageAccess.ts decides that, so private
 * channels with protected history and direct messages keep their rules). Nobody outside the
 * realm. The random URL is only a second layer. Visitors: visitorCanReadAttachment below.
 */
export async function canReadAttachment(q: Executor, user: User, attachment: Attachment): Promise<boolean> {
  if (attachment.realm_id !== user.realm_id) return false;
  if (attachment.owner_id === user.id) return true;
  const messageIds = await attachmentStore.linkedMessageIds(q, attachment.id);
  if (messageIds.length === 0) return false;
  return (await accessMessages(q, new AccessSubject(user), messageIds)).size > 0;
}

/**
 * The same decision for a visitor (no account; Zulip's spectator, validate_attachment_request
 * with an anonymous user) of organization `realm`: a file of that organization linked from at
 * least one message the visitor may read now (messageAccess.accessMessagesAsVisitor: a channel
 * streamAccess.visitorCanRead allows), when the organization lets visitors in. Computed from the
 * current links and channels on every request, where Zulip caches is_web_public per file: moving
 * the message out of the channel or deleting it ends the access at once.
 */
export async function visitorCanReadAttachment(q: Executor, realm: Realm, attachment: Attachment): Promise<boolean> {
  if (attachment.realm_id !== realm.id || !realmLetsVisitorsIn(realm)) return false;
  const messageIds = await attachmentStore.linkedMessageIds(q, attachment.id);
  if (messageIds.length === 0) return false;
  return (await accessMessagesAsVisitor(q, realm.id, messageIds)).size > 0;
}

/**
 * The attachments a message by `sender` may claim from the upload paths its Markdown links:
 * files of the realm that the sender may read (their own, or ones shared with them), as
 * Zulip's do_claim_attachments. Links to other files stay plain links.
 */
export async function claimableAttachments(q: Executor, sender: User, linkedPaths: readonly string[]): Promise<Attachment[]> {
  const pathIds = [...new Set(linkedPaths.map(pathIdFromLinkedPath).filter((p): p is string => p !== undefined))];
  const found = await attachmentStore.listByPathIds(q, sender.realm_id, pathIds);
  const allowed: Attachment[] = [];
  for (const attachment of found) if (await canReadAttachment(q, sender, attachment)) allowed.push(attachment);
  return allowed;
}
