import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import type { JobPayload } from "../models/jobPayloads.js";
import { realmSettings } from "../models/realmSettings.js";
import { type Message } from "../store/messages.js";

/**
 * Website previews (Zulip's embed_links worker): a message whose links could be previewed gets a
 * durable job that fetches the pages, renders the message again with what they said, and, when
 * that changes the HTML, stores it and tells the message's receivers with a rendering-only
 * update_message event. Only for organizations with inline_url_embed_preview, not for bots.
 */
export const URL_PREVIEW_JOB = "url_preview" as const;

/** `content`: the content the links came from (an edit since then has queued its own job). */
export type UrlPreviewJob = JobPayload<"url_preview">;

export async function queueUrlPreviews(tx: Tx, realm: Realm, sender: User, sent: ReadonlyArray<{ message: Message; links: readonly string[] }>): Promise<void> {
  if (sender.is_bot || !realmSettings(realm).inline_url_embed_preview) return;
  const jobs: UrlPreviewJob[] = sent
    .filter(({ links }) => links.length > 0)
    .map(({ message, links }) => ({ realmId: realm.id, messageId: message.id, content: message.content, urls: [...new Set(links)] }));
  if (jobs.length > 0) await tx.enqueueJobs(URL_PREVIEW_JOB, jobs);
}
