import { badRequest, MalformedJsonError, MissingArgumentError } from "../../lib/errors.js";
import { Payload } from "../payload.js";
import { defineIntegration, type WebhookInput } from "../types.js";

/**
 * Zulip's "slack_incoming" integration (zerver/webhooks/slack_incoming/view.py with the block
 * and attachment rendering of zerver/data_import/slack_message_conversion.py): a Slack
 * incoming-webhook message — its blocks and attachments, or, when those say nothing, its text
 * (after its icon_emoji) — with Slack's links and mrkdwn turned into Zulip Markdown. The topic is
 * the message's `channel` (without its # or @) unless the URL names one. Answers and errors are
 * Slack's shape too ({ok: true} beside Zulip's success; {ok: false, error} on an error).
 */

const BLOCK_TYPES = new Set([
  "actions",
  "context",
  "call",
  "contact_card",
  "condition",
  "divider",
  "file",
  "header",
  "image",
  "input",
  "section",
  "table",
  "rich_text",
]);
/** Block types Zulip accepts and renders as nothing (interactive or duplicated elsewhere). */
const UNRENDERED_BLOCKS = new Set(["call", "contact_card", "file", "table", "actions", "rich_text"]);

/** Pieces joined by blank lines, each trimmed, empty ones left out (Zulip's "\n\n".join(... if piece.strip())). */
function joinPieces(pieces: readonly string[]): string {
  return pieces
    .map((piece) => piece.trim())
    .filter((piece) => piece !== "")
    .join("\n\n");
}

function oneOf(value: Payload, allowed: readonly string[]): string {
  const text = value.str();
  if (!allowed.includes(text)) throw badRequest(`Invalid ${value.path}`);
  return text;
}

/** Zulip's check_text_block: {type: plain_text|mrkdwn, text}. */
function textBlock(value: Payload, plainTextOnly = false): string {
  value.dict();
  oneOf(value.get("type"), plainTextOnly ? ["plain_text"] : ["plain_text", "mrkdwn"]);
  return value.get("text").str();
}

function renderBlockElement(element: Payload): string {
  if (element.get("type").str() !== "image") return "";
  return `[${element.get("alt_text").str()}](${element.get("image_url").str()})`;
}

function renderBlock(block: Payload): string {
  const type = block.get("type").str();
  if (!BLOCK_TYPES.has(type)) throw badRequest(`Invalid ${block.get("type").path}`);
  if (UNRENDERED_BLOCKS.has(type)) return "";
  switch (type) {
    case "context": {
      if (!block.get("elements").truthy()) return "";
      return joinPieces(
        block
          .get("elements")
          .list()
          .map((element) => (oneOf(element.get("type"), ["image", "plain_text", "mrkdwn"]) === "image" ? renderBlockElement(element) : textBlock(element))),
      );
    }
    case "divider":
      return "----";
    case "header":
      return "## " + textBlock(block.get("text"), true);
    case "image": {
      const url = block.get("image_url").str();
      let alt = block.get("alt_text").str();
      if (block.has("title")) alt = textBlock(block.get("title"), true);
      return `[${alt}](${url})`;
    }
    case "section": {
      const pieces: string[] = [];
      if (block.has("text")) pieces.push(textBlock(block.get("text")));
      if (block.has("accessory")) pieces.push(renderBlockElement(block.get("accessory")));
      if (block.has("fields")) {
        const fields = block
          .get("fields")
          .list()
          .map((field) => textBlock(field));
        if (fields.length === 1) pieces.push(fields[0] ?? "");
        else {
          // Slack shows the fields in two columns: a table with an empty header row.
          const cells = fields.map((text) => text.replace(/\n/g, " ").replace(/\|/g, " "));
          let table = "| | |\n|-|-|\n";
          for (let i = 0; i < cells.length; i += 2) table += `| ${cells[i]} | ${cells[i + 1] ?? ""} |\n`;
          pieces.push(table);
        }
      }
      return joinPieces(pieces);
    }
    default:
      return "";
  }
}

/** Python's datetime.isoformat() of a UTC time, to the second: 2022-06-23T00:48:26+00:00. */
function globalTime(seconds: number): string {
  return `<time:${new Date(seconds * 1000).toISOString().slice(0, 19)}+00:00>`;
}

function renderAttachment(attachment: Payload): string {
  const pieces: string[] = [];
  if (attachment.get("title").truthy()) {
    const title = attachment.get("title").str();
    pieces.push(attachment.get("title_link").truthy() ? `## [${title}](${attachment.get("title_link").str()})` : `## ${title}`);
  }
  if (attachment.get("pretext").truthy()) pieces.push(attachment.get("pretext").str());
  if (attachment.get("text").truthy()) pieces.push(attachment.get("text").str());
  if (attachment.has("fields")) {
    const fields: string[] = [];
    for (const field of attachment.get("fields").list()) {
      const title = field.get("title");
      const value = field.get("value");
      if (title.truthy() && value.truthy()) fields.push(`*${title.str()}*: ${value.str()}`);
      else if (title.truthy()) fields.push(`*${title.str()}*`);
      else if (value.truthy()) fields.push(value.str());
    }
    pieces.push(fields.join("\n"));
  }
  if (attachment.get("blocks").truthy()) pieces.push(...attachment.get("blocks").list().map(renderBlock));
  if (attachment.get("image_url").truthy()) pieces.push(`[](${attachment.get("image_url").str()})`);
  if (attachment.get("footer").truthy()) pieces.push(attachment.get("footer").str());
  const ts = attachment.get("ts");
  if (ts.truthy()) {
    // Slack sends an integer, and now and then a string holding a float.
    let seconds: number;
    if (typeof ts.value === "string" && ts.value.trim() !== "" && Number.isFinite(Number(ts.value))) seconds = Math.trunc(Number(ts.value));
    else seconds = ts.int();
    pieces.push(globalTime(seconds));
  }
  return joinPieces(pieces);
}

/** Slack's `<https://x.org|label>` and `<https://x.org>` (Zulip's LINK_REGEX, as strict about the host). */
const SLACK_LINK =
  /(<)(http:\/\/www\.|https:\/\/www\.|http:\/\/|https:\/\/|ftp:\/\/)?([a-z0-9]+([-.][a-z0-9]+)*)(\.)([a-z]{2,63}(:[0-9]{1,5})?)(\/[^>]*)?(\|)?(?:\|([^>]+))?(>)/g;
const SLACK_MAILTO = /<((mailto:)?([\p{L}\p{N}_.-]+@[\p{L}\p{N}_.-]+(\.[\p{L}\p{N}_]+)+))(\|)?([\p{L}\p{N}_.-]+@[\p{L}\p{N}_.-]+(\.[\p{L}\p{N}_]+)+)?>/gu;

/** Zulip's replace_links: each Slack link found in the text, replaced everywhere it occurs. */
function replaceLinks(text: string): string {
  let out = text;
  for (const match of text.matchAll(SLACK_LINK)) {
    const slackUrl = match[0];
    const inner = slackUrl.slice(1, -1);
    const pipe = inner.indexOf("|");
    const converted = pipe === -1 ? inner : `[${inner.slice(pipe + 1)}](${inner.slice(0, pipe)})`;
    out = out.split(slackUrl).join(converted);
  }
  const afterLinks = out;
  for (const match of afterLinks.matchAll(SLACK_MAILTO)) out = out.split(match[0]).join(match[1] ?? "");
  return out;
}

/** Slack's emphasis marks, only where they stand apart from words (Zulip's SLACK_*_REGEX). */
function slackEmphasis(mark: "*" | "~" | "_"): RegExp {
  const m = mark === "*" ? "\\*" : mark;
  return new RegExp(
    `((?![${m}\`@\\\\\\p{Pf}\\p{Pe}])[\\p{P}\\p{Zs}\\p{S}]|^)(${m})([^${m}]+)(${m})((?![${m}\`@\\\\\\p{Pi}\\p{Ps}])(?=[\\p{P}\\p{Zs}\\p{S}]|$))`,
    "gmu",
  );
}
const EMPHASIS: ReadonlyArray<[RegExp, string]> = [
  [slackEmphasis("*"), "**"],
  [slackEmphasis("~"), "~~"],
  [slackEmphasis("_"), "*"],
];

/** Zulip's convert_slack_formatting: *bold* → **bold**, ~strike~ → ~~strike~~, _italic_ → *italic*. */
function convertSlackFormatting(text: string): string {
  return EMPHASIS.reduce((out, [re, zulip]) => out.replace(re, (_m, before: string, _open: string, inner: string) => before + zulip + inner + zulip), text);
}

/** The body: JSON when the request says so, else the `payload` form field (or query parameter). */
function slackPayload(hook: WebhookInput): Payload {
  const contentType = (hook.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  let text: string | null | undefined;
  if (contentType === "application/json") text = hook.rawBody;
  else {
    if (contentType === "application/x-www-form-urlencoded") text = new URLSearchParams(hook.rawBody).get("payload");
    text ??= hook.query("payload");
    if (text === undefined || text === null) throw new MissingArgumentError("payload");
  }
  try {
    return new Payload(JSON.parse(text));
  } catch {
    throw new MalformedJsonError();
  }
}

export default defineIntegration({
  name: "slack_incoming",
  displayName: "Slack-compatible webhook",
  webhookName: "SlackIncoming",
  categories: ["communication", "meta-integration"],
  body: "text",
  setup:
    "Use the URL wherever a tool asks for a Slack incoming-webhook URL. Add `&topic=…` to choose the topic; otherwise the message's `channel` is the topic.",
  errorBody: (error) => ({ ok: false, error: error.message }),
  handle: (hook) => {
    const payload = slackPayload(hook).dict();
    const topic = payload.has("channel") ? payload.get("channel").str().replace(/^[@#]/, "") : "(no topic)";
    const pieces: string[] = [];
    if (payload.get("blocks").truthy()) pieces.push(...payload.get("blocks").list().map(renderBlock));
    if (payload.get("attachments").truthy()) pieces.push(...payload.get("attachments").list().map(renderAttachment));
    let body = joinPieces(pieces);
    if (body === "" && payload.get("text").truthy()) {
      if (payload.get("icon_emoji").truthy()) body = payload.get("icon_emoji").str() + " ";
      body = (body + payload.get("text").str()).trim();
    }
    const response = { ok: true };
    if (body === "") return { messages: [], response };
    return { messages: [{ topic, content: convertSlackFormatting(replaceLinks(body).trim()) }], response };
  },
});
