import type { Payload } from "../payload.js";
import { defineIntegration, type WebhookInput } from "../types.js";

/**
 * Zulip's "freshdesk" integration (zerver/webhooks/freshdesk/view.py, authenticated with HTTP
 * Basic as Zulip's authenticated_rest_api_view, or api_key): Freshdesk automation rules send
 * {"freshdesk_webhook": {…ticket placeholders…}}; a new ticket, a note, and status or priority
 * changes are posted under "#<id>: <subject>", other events nothing.
 */

/** Freshdesk's numbered statuses and priorities, as Zulip names them. */
const STATUSES = ["", "", "Open", "Pending", "Resolved", "Closed", "Waiting on Customer", "Job Application", "Monthly"];
const PRIORITIES = ["", "Low", "Medium", "High", "Urgent"];

function propertyName(property: string, index: number): string {
  const names = property === "status" ? STATUSES : property === "priority" ? PRIORITIES : undefined;
  if (!names) return "";
  if (index >= names.length) return String(index);
  // Python's negative indexes count from the end.
  return names.at(index) ?? "";
}

/** "{ticket_action:created}" → [ticket_action, created]; "{status:{from:4,to:6}}" → [status, Resolved, Waiting on Customer]. */
function parseEvent(hook: WebhookInput, event: string): string[] {
  const data = event.replace(/[{}]/g, "").replace(/,/g, ":").split(":");
  if (data.length === 2) return data;
  if (data.length !== 5) throw hook.anomalous();
  const [property = "", , from = "", , to = ""] = data;
  if (!/^\s*[-+]?\d+\s*$/.test(from) || !/^\s*[-+]?\d+\s*$/.test(to)) throw hook.anomalous();
  return [property, propertyName(property, parseInt(from, 10)), propertyName(property, parseInt(to, 10))];
}

const ENTITIES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith("#x") || name.startsWith("#X")) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith("#")) return String.fromCodePoint(parseInt(name.slice(1), 10));
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** Python's textwrap.wrap(width=78, break_long_words=False): greedy, on whitespace. */
function wrap(line: string, width = 78): string {
  const words = line.split(/\s+/).filter((w) => w !== "");
  const lines: string[] = [];
  let current = "";
  for (const word of words) {
    if (current === "") current = word;
    else if (Array.from(current).length + 1 + Array.from(word).length <= width) current += " " + word;
    else {
      lines.push(current);
      current = word;
    }
  }
  if (current !== "") lines.push(current);
  return lines.join("\n");
}

const BLOCK_TAGS = new Set(["p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "ul", "ol", "li", "table", "tr", "pre", "hr"]);

/**
 * Freshdesk's HTML descriptions as Markdown, after the manner of the html2text Zulip runs
 * (paragraphs apart, <br> as a hard break, text wrapped at 78 columns, links and images inline),
 * then Zulip's rewrite of `![](…/name.png?…)` into `[name.png](…/name.png)`.
 */
export function htmlToMarkdown(html: string): string {
  const blocks: string[][] = [];
  let lines: string[] = [""];
  const flush = () => {
    if (lines.some((l) => l.trim() !== "") || lines.length > 1) blocks.push(lines);
    lines = [""];
  };
  let href: string | undefined;
  let linkText = "";
  /** Text goes into the link being read, if any, else onto the current line. */
  const emit = (text: string) => {
    if (href !== undefined) linkText += text;
    else lines[lines.length - 1] += text;
  };
  const tokenRe = /<!--[\s\S]*?-->|<(\/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>|([^<]+|<)/g;
  for (const m of html.matchAll(tokenRe)) {
    const [, closing, rawTag, attrs = "", text] = m;
    if (text !== undefined) {
      emit(decodeEntities(text.replace(/\s+/g, " ")));
      continue;
    }
    if (rawTag === undefined) continue;
    const tag = rawTag.toLowerCase();
    const attr = (name: string) => new RegExp(`\\b${name}\\s*=\\s*("([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(attrs);
    const attrValue = (name: string) => {
      const found = attr(name);
      return found ? decodeEntities(found[2] ?? found[3] ?? found[4] ?? "") : undefined;
    };
    if (BLOCK_TAGS.has(tag)) {
      flush();
      if (!closing && tag === "li") emit("  * ");
      if (!closing && /^h[1-6]$/.test(tag)) emit("#".repeat(Number(tag[1])) + " ");
    } else if (tag === "br") {
      emit("  ");
      lines.push("");
    } else if (tag === "b" || tag === "strong") emit("**");
    else if (tag === "i" || tag === "em") emit("_");
    else if (tag === "code") emit("`");
    else if (tag === "img" && !closing) {
      const src = attrValue("src");
      if (src) emit(`![${attrValue("alt") ?? ""}](${src})`);
    } else if (tag === "a") {
      if (!closing) {
        href = attrValue("href");
        linkText = "";
        if (href === undefined) continue;
      } else if (href !== undefined) {
        const text = `[${linkText.trim()}](${href})`;
        href = undefined;
        emit(text);
      }
    }
  }
  flush();
  const markdown = blocks
    .map((block) =>
      block
        .map((line) => (line.trim() === "" ? line.replace(/^\s+$/, "  ") : wrap(line.trim()) + (line.endsWith("  ") ? "  " : "")))
        .join("\n")
        .replace(/^\n+|\n+$/g, ""),
    )
    .filter((block) => block !== "")
    .join("\n\n")
    .trim();
  return markdown.replace(/!\[\]\((\S*)\/(\S*)\?(\S*)\)/g, "[$2]($1/$2)");
}

function ticketField(ticket: Payload, name: string): string {
  return ticket.get(name).str();
}

export default defineIntegration({
  name: "freshdesk",
  displayName: "Freshdesk",
  categories: ["customer-support"],
  // Zulip's authenticated_rest_api_view does not tell the bot's owner of a body that is not JSON.
  notifyOwnerOnInvalidJson: false,
  setup:
    'In Freshdesk, add automation rules (for new tickets, and for status, priority and note changes) whose action is **Trigger webhook**: POST to the URL above, authenticated with this bot\'s email and API key, with a JSON body `{"freshdesk_webhook": {…}}` of the ticket placeholders (triggered_event, ticket_id, ticket_url, ticket_type, ticket_subject, ticket_description, ticket_status, ticket_priority, requester_name, requester_email).',
  handle: (hook) => {
    const ticket = hook.payload.get("freshdesk_webhook").dict();
    const topic = `#${ticketField(ticket, "ticket_id")}: ${ticketField(ticket, "ticket_subject")}`;
    const event = parseEvent(hook, ticketField(ticket, "triggered_event"));
    const who = `${ticketField(ticket, "requester_name")} <${ticketField(ticket, "requester_email")}>`;
    const link = `[ticket #${ticketField(ticket, "ticket_id")}](${ticketField(ticket, "ticket_url")})`;
    let content: string;
    if (event[1] === "created") {
      const description = htmlToMarkdown(ticketField(ticket, "ticket_description"));
      content =
        `${who} created ${link}:\n\n\`\`\` quote\n${description}\n\`\`\`\n\n` +
        `* **Type**: ${ticketField(ticket, "ticket_type")}\n* **Priority**: ${ticketField(ticket, "ticket_priority")}\n* **Status**: ${ticketField(ticket, "ticket_status")}`;
    } else if (event[0] === "note_type") content = `${who} added a ${event[1]} note to ${link}.`;
    else if (event[0] === "status" || event[0] === "priority") {
      const property = event[0].charAt(0).toUpperCase() + event[0].slice(1);
      content = `${who} updated ${link}:\n\n* **${property}**: ${event[1]} -> ${event[2]}`;
    } else return null;
    return { topic, content };
  },
});
