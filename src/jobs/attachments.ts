import { type AppContext, transaction } from "../appContext.js";
import { doDeleteAttachments, unclaimedSeconds, UNCLAIMED_UPLOAD_JOB } from "../actions/attachments.js";
import { thumbnailKey } from "../lib/uploadFiles.js";
import { attachmentStore } from "../store/attachments.js";
import { lazy } from "../util/lazy.js";
import { nowSeconds } from "../util/time.js";

// The upload jobs that actions/attachments.ts queues: blob removal, the unclaimed-upload check, thumbnails.

// sharp (libvips: 70 ms and 20 MB) is loaded by the first thumbnail job.
const loadSharp = lazy(async () => (await import("sharp")).default);

/** Job: remove blobs whose attachment rows are gone. */
export async function deleteUploadBlobs(ctx: AppContext, payload: { keys: string[] }): Promise<void> {
  for (const key of payload.keys) await ctx.blobs.delete(key);
}

/**
 * Job: delete an upload that no message links once it has been unlinked (since `since`: its
 * upload, or the edit that removed its last link) for the unclaimed period; a check that comes
 * early schedules itself again for the right time.
 */
export async function deleteIfUnclaimed(ctx: AppContext, payload: { attachmentId: number; since: number }): Promise<void> {
  await transaction(ctx, async (tx) => {
    const attachment = await attachmentStore.getById(tx.q, payload.attachmentId);
    if (!attachment) return;
    if ((await attachmentStore.linkedMessageIds(tx.q, attachment.id)).length > 0) return;
    const due = payload.since + unclaimedSeconds(ctx);
    if (nowSeconds() < due) {
      await tx.enqueueJob(UNCLAIMED_UPLOAD_JOB, payload, { runAt: due });
      return;
    }
    await doDeleteAttachments(tx, [attachment]);
  });
}

/** Job: a WebP thumbnail that fits 840×560 (Zulip's default size), stored beside the upload. */
export async function makeThumbnail(ctx: AppContext, payload: { pathId: string }): Promise<void> {
  const original = await ctx.blobs.readAll(payload.pathId);
  if (!original) return; // deleted meanwhile
  const sharp = await loadSharp();
  let thumbnail: Buffer;
  try {
    thumbnail = await sharp(original, { limitInputPixels: 50_000_000, animated: false })
      .rotate()
      .resize({ width: 840, height: 560, fit: "inside", withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer();
  } catch (error) {
    // Not a decodable image (the type was only claimed): nothing to make, nothing to retry.
    ctx.log.info({ pathId: payload.pathId, err: (error as Error).message }, "no thumbnail for upload");
    return;
  }
  await ctx.blobs.putBytes(thumbnailKey(payload.pathId), thumbnail);
}
