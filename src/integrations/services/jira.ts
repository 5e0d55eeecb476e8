import type { Payload } from "../payload.js";
import { pyStr, pyTruthy } from "../python.js";
import { optString } from "../trackerText.js";
import { defineIntegration, type WebhookInput, type WebhookMessage } from "../types.js";

/**
 * Zulip's "jira" integration (zerver/webhooks/jira): issue created, updated (assignee, status,
 * transitions, any changelog field, comments bundled in issue updates) and deleted, and the
 * newer comment_* events. Jira's wiki markup in comments becomes Markdown.
 */

const IGNORED_EVENTS = new Set([
  "attachment_created",
  "issuelink_created",
  "issuelink_deleted",
  "jira:version_released",
  "jira:worklog_updated",
  "sprint_closed",
  "sprint_started",
  "worklog_created",
  "worklog_updated",
]);

/** Zulip's get_in: the string at `path`, or `fallback` when a step is missing or not a dict (null at the end is a 400). */
function getIn(payload: Payload, path: readonly string[], fallback = ""): string {
  let p = payload;
  for (const key of path) p = p.get(key);
  return p.value === undefined ? fallback : p.str();
}

/**
 * Jira wiki markup → Markdown, as Zulip's convert_jira_markup. A [~username] mention becomes
 * the name in bold (Zulip first looks for a realm member by that name or email prefix; this
 * server's webhook handlers cannot see the realm's members, so the Jira name is kept).
 */
export function convertJiraMarkup(text: string): string {
  let out = text.replace(/\*([^*]+)\*/g, "**$1**");
  out = out.replace(/\{\{([^*]+?)\}\}/g, "`$1`");
  out = out.replace(/bq\. (.*)/g, "> $1");
  out = out.replace(/\{quote\}([\s\S]*?)\{quote\}/g, "~~~ quote\n$1\n~~~");
  out = out.replace(/\{noformat\}([\s\S]*?)\{noformat\}/g, "~~~\n$1\n~~~");
  out = out.replace(/\{code[^\n]*\}([\s\S]*?)\{code\}/g, "~~~\n$1\n~~~");
  out = out.replace(/\[([^|~]+?)\]/g, "[$1]($1)");
  out = out.replace(/\[(?:([^|~]+)\|)([^\]]*)\]/g, "[$1]($2)");
  for (const m of [...out.matchAll(/\[~(.*?)\]/g)]) {
    const username = m[1] ?? "";
    out = out.split(`[~${username}]`).join(`**${username}**`);
  }
  return out;
}

function issueId(payload: Payload): string {
  if (!payload.has("issue")) return payload.at("comment.self").str().split("/").at(-3) ?? "";
  return getIn(payload, ["issue", "key"]);
}

function issueTitle(payload: Payload): string {
  if (!payload.has("issue")) return "Upgrade Jira to get the issue title here.";
  return getIn(payload, ["issue", "fields", "summary"]);
}

/** The issue, linked to /browse/<key> on the Jira the issue's REST URL names. */
function issueString(payload: Payload, id: string = issueId(payload), withTitle = false): string {
  const text = withTitle ? `${id}: ${issueTitle(payload)}` : id;
  const base = /^(.*)\/rest\/api\/.*/.exec(getIn(payload, ["issue", "self"]));
  return base ? `[${text}](${base[1]}/browse/${id})` : text;
}

/** Zulip names the assignee by the realm member with that email; without access to members, the email. */
function assigneeMention(email: string): string {
  return email !== "" ? `**${email}**` : "";
}

const author = (payload: Payload) => getIn(payload, ["user", "displayName"]);

function subEventForUpdate(payload: Payload): string {
  const p = payload.get("issue_event_type_name");
  const sub = p.value === undefined ? "" : p.str();
  if (sub === "") {
    if (pyTruthy(payload.get("comment").value)) return "issue_commented";
    if (pyTruthy(payload.get("transition").value)) return "issue_transited";
  }
  return sub;
}

function changeInfo(field: string | undefined, from: string | undefined, to: string): string {
  let line = `* Changed ${pyStr(field)}`;
  if (from) line += ` from **${from}**`;
  if (to) line += ` to ${to}\n`;
  return line;
}

function updated(payload: Payload): string {
  const id = getIn(payload, ["issue", "key"]);
  const issue = issueString(payload, id, true);
  const mention = assigneeMention(getIn(payload, ["issue", "fields", "assignee", "emailAddress"], ""));
  const blurb = mention !== "" ? ` (assigned to ${mention})` : "";
  const sub = subEventForUpdate(payload);
  if (sub.includes("comment")) {
    const verb = sub === "issue_commented" ? "commented on" : sub === "issue_comment_edited" ? "edited a comment on" : "deleted a comment from";
    const who = optString(payload.get("webhookEvent")) === "comment_created" ? payload.at("comment.author.displayName").str() : author(payload);
    const content = `${who} ${verb} ${issue}${blurb}`;
    const comment = getIn(payload, ["comment", "body"]);
    return comment ? `${content}:\n\n\`\`\` quote\n${convertJiraMarkup(comment)}\n\`\`\`` : `${content}.`;
  }
  let content = `${author(payload)} updated ${issue}${blurb}:\n\n`;
  const changelog = payload.get("changelog");
  if (pyTruthy(changelog.value)) {
    for (const item of changelog.get("items").list()) {
      const field = optString(item.get("field"));
      const target = field === "assignee" && mention !== "" ? mention : `**${pyStr(optString(item.get("toString")) ?? null)}**`;
      const from = optString(item.get("fromString"));
      if (target || from) content += changeInfo(field, from, target);
    }
  } else if (sub === "issue_transited") {
    const from = getIn(payload, ["transition", "from_status"]);
    const target = `**${getIn(payload, ["transition", "to_status"])}**`;
    content += changeInfo("status", from, target);
  }
  return content;
}

function created(payload: Payload): string {
  return [
    `${author(payload)} created ${issueString(payload, undefined, true)}:`,
    "",
    `* **Priority**: ${getIn(payload, ["issue", "fields", "priority", "name"])}`,
    `* **Assignee**: ${getIn(payload, ["issue", "fields", "assignee", "displayName"], "no one")}`,
  ].join("\n");
}

const PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

function deleted(payload: Payload): string {
  const title = issueTitle(payload);
  const last = title.at(-1);
  if (last === undefined) throw new RangeError("string index out of range");
  return `${author(payload)} deleted ${issueString(payload, undefined, true)}${PUNCTUATION.includes(last) ? "" : "."}`;
}

/** Jira escapes `!` in comment bodies as `\!`. */
const normalizeComment = (text: string) => text.split("\\!").join("!");

function commentEvent(verb: string, strike: boolean) {
  return (payload: Payload): string => {
    const body = normalizeComment(payload.at("comment.body").str());
    const who = payload.at("comment.author.displayName").str();
    return `${who} ${verb} ${issueString(payload, undefined, true)}\n\`\`\` quote\n${strike ? `~~${body}~~` : body}\n\`\`\`\n`;
  };
}

const HANDLERS: Record<string, (payload: Payload) => string> = {
  "jira:issue_created": created,
  "jira:issue_deleted": deleted,
  "jira:issue_updated": updated,
  comment_created: commentEvent("commented on", false),
  comment_updated: commentEvent("updated their comment on", false),
  comment_deleted: commentEvent("deleted their comment on", true),
};

function eventType(payload: Payload): string | undefined {
  const event = optString(payload.get("webhookEvent"));
  if (event === undefined && pyTruthy(payload.get("transition").value)) return "jira:issue_updated";
  return event;
}

function handle(hook: WebhookInput): WebhookMessage | null {
  const { payload } = hook;
  const event = eventType(payload);
  if (event !== undefined && IGNORED_EVENTS.has(event)) return null;
  if (event === undefined) throw hook.anomalous();
  const handler = HANDLERS[event];
  if (!handler) throw hook.unsupported(event);
  const topic = `${issueId(payload)}: ${issueTitle(payload)}`;
  return { topic, content: handler(payload), eventType: event };
}

export default defineIntegration({
  name: "jira",
  displayName: "Jira",
  categories: ["project-management"],
  allEventTypes: Object.keys(HANDLERS),
  unquoteUrlParameters: true,
  setup:
    "In Jira, go to **Settings** (the gear) → **System** → **WebHooks** and click **Create a WebHook**. " +
    "Give it a name, paste the URL generated here, select the issue and comment events you want, and click **Create**.",
  handle,
});
