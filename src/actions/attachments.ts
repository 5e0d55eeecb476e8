import { rm } from "node:fs/promises";
import { type AppContext, transaction } from "../appContext.js";
import type { User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../lib/errors.js";
import { isThumbnailable, newPathId, thumbnailKey, uploadUrl } from "../lib/uploadFiles.js";
import { type Attachment, attachmentStore } from "../store/attachments.js";
import { nowSeconds } from "../util/time.js";
import type { AttachmentEvent } from "../events/types.js";
import { type AttachmentPayload, buildAttachmentPayload } from "../lib/attachmentPayload.js";
import { checkUploadQuota } from "./realmLimits.js";

/**
 * Uploaded files as attachments (Zulip's zerver/actions/uploads.py): created by an upload,
 * claimed by the messages that link them, deleted by their owner, with the last message that
 * links them, or when no message linked them for PARLEY_UNCLAIMED_UPLOAD_DAYS. Blob removal and
 * thumbnails are durable jobs that run after the database change commits.
 */
export const DELETE_BLOBS_JOB = "delete_upload_blobs";
export const UNCLAIMED_UPLOAD_JOB = "unclaimed_upload_check";
export const THUMBNAIL_JOB = "upload_thumbnail";

async function sendAttachmentEvents(tx: Tx, op: "add" | "update", attachments: readonly Attachment[]): Promise<void> {
  const [first] = attachments;
  if (first === undefined) return;
  const linked = await attachmentStore.linkedMessages(
    tx.q,
    attachments.map((a) => a.id),
  );
  const spaceUsed = await attachmentStore.realmSpaceUsed(tx.q, first.realm_id);
  for (const attachment of attachments) {
    const event: AttachmentEvent = {
      type: "attachment",
      op,
      attachment: buildAttachmentPayload(attachment, linked.get(attachment.id) ?? []),
      upload_space_used: spaceUsed,
    };
    tx.sendEventOnCommit(event, [attachment.owner_id]);
  }
}

export interface StoredUpload {
  /** A finished local file to store; removed once stored (or refused). */
  localPath: string;
  name: string;
  size: number;
  contentType: string;
}

/**
 * Stores an uploaded file and records it as the user's attachment. The blob is written first;
 * if the database change then fails, it is removed again, so no row names a missing file and no
 * file outlives a failed request.
 */
export async function createUpload(ctx: AppContext, user: User, upload: StoredUpload): Promise<{ url: string; pathId: string; attachment: Attachment }> {
  const pathId = newPathId(user.realm_id, upload.name);
  try {
    // Refused before the bytes are stored; checked again with the row (another upload may have finished meanwhile).
    await checkUploadQuota(ctx.db.kysely, user.realm_id, upload.size);
  } catch (error) {
    await rm(upload.localPath, { force: true });
    throw error;
  }
  await ctx.blobs.putFile(pathId, upload.localPath);
  try {
    const attachment = await transaction(ctx, (tx) => doCreateAttachment(tx, ctx, user, pathId, upload));
    return { url: uploadUrl(pathId), pathId, attachment };
  } catch (error) {
    await ctx.blobs.delete(pathId);
    throw error;
  } finally {
    await rm(upload.localPath, { force: true });
  }
}

async function doCreateAttachment(tx: Tx, ctx: AppContext, user: User, pathId: string, upload: StoredUpload): Promise<Attachment> {
  await checkUploadQuota(tx.q, user.realm_id, upload.size);
  const now = nowSeconds();
  const attachment = await attachmentStore.insert(tx.q, {
    realm_id: user.realm_id,
    owner_id: user.id,
    file_name: upload.name,
    path_id: pathId,
    size: upload.size,
    content_type: upload.contentType,
    create_time: now,
  });
  await tx.enqueueJob(UNCLAIMED_UPLOAD_JOB, { attachmentId: attachment.id, since: now }, { runAt: now + unclaimedSeconds(ctx) });
  if (isThumbnailable(upload.contentType)) await tx.enqueueJob(THUMBNAIL_JOB, { pathId }, { maxAttempts: 3 });
  await sendAttachmentEvents(tx, "add", [attachment]);
  return attachment;
}

export function unclaimedSeconds(ctx: AppContext): number {
  return Math.max(1, Math.round(ctx.config.uploads.unclaimedDays * 86400));
}

/** Links a new message to its claimed attachments and tells their owners. */
export async function doLinkAttachments(tx: Tx, messageId: number, attachments: readonly Attachment[]): Promise<void> {
  if (attachments.length === 0) return;
  await attachmentStore.link(
    tx.q,
    messageId,
    attachments.map((a) => a.id),
  );
  await sendAttachmentEvents(tx, "update", attachments);
}

/**
 * After a content edit: links the newly claimed attachments and unlinks those the message no
 * longer names (Zulip's check_attachment_reference_change). A file left unlinked is deleted
 * after the unclaimed period unless linked again. Returns the editor's own uploads that no
 * message links any more (PATCH /messages' detached_uploads).
 */
export async function doRelinkAttachments(tx: Tx, editor: User, messageId: number, claimed: readonly Attachment[]): Promise<AttachmentPayload[]> {
  const before = new Set(await attachmentStore.idsLinkedBy(tx.q, [messageId]));
  const after = new Set(claimed.map((a) => a.id));
  const removed = [...before].filter((id) => !after.has(id));
  let detached: Attachment[] = [];
  const added = claimed.filter((a) => !before.has(a.id));
  if (removed.length > 0) {
    await attachmentStore.unlink(tx.q, messageId, removed);
    detached = await attachmentStore.unlinked(tx.q, removed);
    for (const attachment of detached) await tx.enqueueJob(UNCLAIMED_UPLOAD_JOB, { attachmentId: attachment.id, since: nowSeconds() });
  }
  if (added.length > 0)
    await attachmentStore.link(
      tx.q,
      messageId,
      added.map((a) => a.id),
    );
  const changed = [...added.map((a) => a.id), ...removed];
  const rows = (await Promise.all(changed.map((id) => attachmentStore.getById(tx.q, id)))).filter((a): a is Attachment => a !== undefined);
  await sendAttachmentEvents(tx, "update", rows);
  return detached.filter((a) => a.owner_id === editor.id).map((a) => buildAttachmentPayload(a, []));
}

/**
 * Call with the ids of messages about to be deleted, before deleting them; returns a function to
 * call afterwards, which deletes the files no message links any more (Zulip: "when the last
 * message linking a file is deleted") and tells the owners of the others.
 */
export async function prepareMessageDeletion(tx: Tx, messageIds: readonly number[]): Promise<() => Promise<void>> {
  const linked = await attachmentStore.idsLinkedBy(tx.q, messageIds);
  return async () => {
    if (linked.length === 0) return;
    const orphans = await attachmentStore.unlinked(tx.q, linked);
    await doDeleteAttachments(tx, orphans);
    const orphanIds = new Set(orphans.map((a) => a.id));
    const rest = (await Promise.all(linked.filter((id) => !orphanIds.has(id)).map((id) => attachmentStore.getById(tx.q, id)))).filter(
      (a): a is Attachment => a !== undefined,
    );
    await sendAttachmentEvents(tx, "update", rest);
  };
}

/** DELETE /attachments/{id}: only the uploader; "Invalid attachment" for anything else. */
export async function checkDeleteAttachment(tx: Tx, user: User, attachmentId: number): Promise<void> {
  const attachment = await attachmentStore.getById(tx.q, attachmentId);
  if (!attachment || attachment.owner_id !== user.id || attachment.realm_id !== user.realm_id) throw badRequest("Invalid attachment");
  await doDeleteAttachments(tx, [attachment]);
}

/** Deletes the rows now and the files (with thumbnails) in a durable job after commit. */
export async function doDeleteAttachments(tx: Tx, attachments: readonly Attachment[]): Promise<void> {
  const [first] = attachments;
  if (first === undefined) return;
  await attachmentStore.deleteByIds(
    tx.q,
    attachments.map((a) => a.id),
  );
  const keys = attachments.flatMap((a) => [a.path_id, thumbnailKey(a.path_id)]);
  await tx.enqueueJob(DELETE_BLOBS_JOB, { keys });
  const spaceUsed = await attachmentStore.realmSpaceUsed(tx.q, first.realm_id);
  for (const attachment of attachments) {
    tx.sendEventOnCommit({ type: "attachment", op: "remove", attachment: { id: attachment.id }, upload_space_used: spaceUsed }, [attachment.owner_id]);
  }
}
