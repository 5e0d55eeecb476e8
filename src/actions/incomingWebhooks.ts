import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../lib/errors.js";
import { userStore } from "../store/users.js";
import { checkSendMessage } from "./messageSend.js";

/**
 * Zulip's check_send_webhook_message: an integration's message goes to the channel and topic
 * named in the webhook URL (`stream` by name or id, `topic` overriding the integration's own),
 * or, without a channel, to the bot's owner as a direct message. Sent through the normal send
 * path, so every rule of sending applies to the bot.
 */
export interface WebhookTarget {
  stream?: string;
  topic?: string;
}

export async function sendWebhookMessage(tx: Tx, bot: User, realm: Realm, target: WebhookTarget, defaultTopic: string, content: string): Promise<void> {
  if (content.trim() === "") return;
  if (target.stream !== undefined && target.stream !== "") {
    const to = /^\d+$/.test(target.stream) ? Number(target.stream) : target.stream;
    await checkSendMessage(tx, bot, realm, {
      type: "stream",
      to,
      topic: target.topic ?? defaultTopic,
      content,
      clientName: "ZulipWebhook",
      readBySender: true,
    });
    return;
  }
  const owner = bot.bot_owner_id === null ? undefined : await userStore.getById(tx.q, bot.bot_owner_id);
  if (!owner || !owner.is_active) throw badRequest("Missing 'stream' argument");
  await checkSendMessage(tx, bot, realm, { type: "private", to: [owner.id], topic: undefined, content, clientName: "ZulipWebhook", readBySender: true });
}

// ---- the integrations ----

/** Zulip's "json" integration: the payload, pretty-printed in a code block, topic "JSON". */
export function jsonIntegrationMessage(payload: unknown): { topic: string; content: string } {
  return { topic: "JSON", content: "```json\n" + JSON.stringify(payload, null, 2) + "\n```" };
}

/** Slack's mrkdwn to Zulip Markdown (Zulip's slack_incoming: links, *bold*, _italic_). */
function slackToMarkdown(text: string): string {
  let out = text.replace(/<(\w+?:\/\/[^|>]*?)\|([^>]*?)>/g, "[$2]($1)").replace(/<(\w+?:\/\/[^>]*?)>/g, "$1");
  out = out.replace(/(^|[^\w])\*(?!\s)([^*\n]+?)(?<!\s)\*(?=[^\w]|$)/g, "$1**$2**");
  out = out.replace(/(^|[^\w])_(?!\s)([^_\n]+?)(?<!\s)_(?=[^\w]|$)/g, "$1*$2*");
  return out;
}

interface SlackAttachment {
  pretext?: string;
  title?: string;
  title_link?: string;
  text?: string;
  fields?: Array<{ title?: string; value?: string }>;
  image_url?: string;
  footer?: string;
}

/** Zulip's "slack_incoming" integration: text, attachments and section blocks. */
export function slackIncomingMessage(payload: Record<string, unknown>): { topic: string; content: string } {
  const parts: string[] = [];
  if (typeof payload.text === "string" && payload.text !== "") parts.push(slackToMarkdown(payload.text));
  for (const block of Array.isArray(payload.blocks) ? payload.blocks : []) {
    const b = block as { type?: string; text?: { text?: string }; fields?: Array<{ text?: string }> };
    if (b.type === "section" && typeof b.text?.text === "string") parts.push(slackToMarkdown(b.text.text));
    for (const field of b.fields ?? []) if (typeof field.text === "string") parts.push(slackToMarkdown(field.text));
    if (b.type === "divider") parts.push("---");
  }
  for (const raw of Array.isArray(payload.attachments) ? payload.attachments : []) {
    const a = raw as SlackAttachment;
    const lines: string[] = [];
    if (a.pretext) lines.push(slackToMarkdown(a.pretext));
    if (a.title) lines.push(a.title_link ? `**[${a.title}](${a.title_link})**` : `**${a.title}**`);
    if (a.text) lines.push(slackToMarkdown(a.text));
    for (const field of a.fields ?? []) lines.push(`**${field.title ?? ""}**: ${slackToMarkdown(field.value ?? "")}`);
    if (a.image_url) lines.push(`[](${a.image_url})`);
    if (a.footer) lines.push(slackToMarkdown(a.footer));
    if (lines.length > 0) parts.push(lines.join("\n"));
  }
  const channel = typeof payload.channel === "string" ? payload.channel.replace(/^[@#]/, "") : undefined;
  return { topic: channel ?? "(no topic)", content: parts.join("\n\n") };
}
