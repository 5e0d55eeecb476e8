import { BoundedCache } from "../util/boundedCache.js";
import { nowSeconds } from "../util/time.js";
import type { UrlPreviewJob } from "../actions/urlPreviews.js";
import { type AppContext, transaction } from "../appContext.js";
import type { UrlEmbed } from "../lib/markdown/types.js";
import { renderMessageContent } from "../lib/messageRendering.js";
import { fetchUrlEmbed } from "../lib/urlEmbeds.js";
import { flagsToList } from "../models/messageFlags.js";
import { messageStore } from "../store/messages.js";
import { realmStore } from "../store/realms.js";
import { userMessageEditStore } from "../store/userMessages.js";
import { userStore } from "../store/users.js";
import { sendUpdateEvents } from "../lib/messageUpdateEvents.js";
import { messageEditStore } from "../store/messageEdits.js";

// The website preview job that actions/urlPreviews.ts queues.

/** Recently fetched previews, by URL (Zulip keeps them in its cache for a week); a cached null is an answer too. */
const recent = new BoundedCache<string, UrlEmbed | null>(500, 60 * 60 * 1000);

async function embedFor(ctx: AppContext, url: string): Promise<UrlEmbed | null> {
  const hit = recent.get(url);
  if (hit !== undefined) return hit;
  const embed = await fetchUrlEmbed(url, ctx.config.outgoing.allowHosts);
  recent.set(url, embed);
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
    const spectators = found.is_channel_message ? { realm_id: realm.id, recipient_id: found.recipient_id } : undefined;
    sendUpdateEvents(tx, event, new Map(flags.map((row) => [row.user_id, flagsToList(row.flags)])), spectators);
  });
}
