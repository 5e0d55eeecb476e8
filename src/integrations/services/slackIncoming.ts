import { MalformedJsonError } from "../../lib/errors.js";
import { Payload } from "../payload.js";
import { defineIntegration } from "../types.js";

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

/** The body: Slack's JSON, or a form whose `payload` field holds it. */
function slackPayload(raw: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    const form = new URLSearchParams(raw).get("payload");
    if (form === null) throw new MalformedJsonError();
    try {
      parsed = JSON.parse(form);
    } catch {
      throw new MalformedJsonError();
    }
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new MalformedJsonError();
  return parsed as Record<string, unknown>;
}

/** Zulip's "slack_incoming" integration: text, attachments and section blocks. */
export default defineIntegration({
  name: "slack_incoming",
  displayName: "Slack-compatible webhook",
  webhookName: "SlackIncoming",
  categories: ["communication", "meta-integration"],
  body: "text",
  setup: "Use the URL wherever a tool asks for a Slack incoming-webhook URL.",
  handle: ({ rawBody }) => {
    const payload = slackPayload(rawBody);
    new Payload(payload).dict();
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
  },
});
