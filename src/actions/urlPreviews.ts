import { nowSeconds } from "../util/time.js";
import { type AppContext, transaction } from "../appContext.js";
import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import type { UrlEmbed } from "../lib/markdown/types.js";
import { renderMessageContent } from "../lib/messageRendering.js";
import { fetchUrlEmbed } from "../lib/urlEmbeds.js";
import type { JobPayload } from "../models/jobPayloads.js";
import { flagsToList } from "../models/messageFlags.js";
import { realmSettings } from "../models/realmSettings.js";
import { type Message, messageStore } from "../store/messages.js";
import { realmStore } from "../store/realms.js";
import { userMessageEditStore } from "../store/userMessages.js";
import { userStore } from "../store/users.js";
import { sendUpdateEvents } from "./messageEdit.js";
import { messageEditStore } from "../store/messageEdits.js";

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

/** Recently fetched previews, by URL (Zulip keeps them in its cache for a week). */
const recent = new Map<string, { embed: UrlEmbed | null; at: number }>();
const RECENT_LIMIT = 500;
const RECENT_MS = 60 * 60 * 1000;

async function embedFor(ctx: AppContext, url: string): Promise<UrlEmbed | null> {
  const hit = recent.get(url);
  if (hit && Date.now() - hit.at < RECENT_MS) return hit.embed;
  const embed = await fetchUrlEmbed(url, ctx.config.outgoing.allowHosts);
  if (recent.size >= RECENT_LIMIT) recent.delete(recent.keys().next().value!);
  recent.set(url, { embed, at: Date.now() });
  return embed;
}

export async function fetchUrlPreviews(ctx: AppContext, job: UrlPreviewJob): Promise<void> {
  const embeds = new Map<string, UrlEmbed | null>();
  for (const url of job.urls) embeds.set(url, await embedFor(ctx, url));
  await transaction(ctx, async (tx) => {
    await messageEditStore.lock(tx.q, job.messageId);
    const [found] = await messageStore.listByIds(tx.q, job.realmId, [job.messageId]);
    if (!found || found.content !== job.content) return; // deleted or edited meanwhile
    const [realm, sender] = [await realmStore.getById(tx.q, found.realm_id), await userStore.getById(tx.q, found.sender_id)];
    if (!realm || !sender) return;
    const rendered = await renderMessageContent(tx.q, realm, sender, found.content, { urlEmbeds: embeds });
    if (rendered.html === found.rendered_content) return;
    await messageEditStore.update(tx.q, found.id, { rendered_content: rendered.html, has_image: rendered.hasImage ? 1 : 0 });
    const event = {
      user_id: null,
      edit_timestamp: nowSeconds(),
      message_id: found.id,
      message_ids: [found.id],
      content: found.content,
      rendered_content: rendered.html,
      rendering_only: true,
    };
    const flags = await userMessageEditStore.rowsFor(tx.q, found.id);
    sendUpdateEvents(tx, event, new Map(flags.map((row) => [row.user_id, flagsToList(row.flags)])));
  });
}
