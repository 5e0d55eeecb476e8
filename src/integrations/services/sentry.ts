import { Payload } from "../payload.js";
import { pyStr, pyTruthy } from "../python.js";
import { globalTime, globalTimeFromUnix } from "../trackerText.js";
import { defineIntegration, type WebhookInput, type WebhookMessage } from "../types.js";

/**
 * Zulip's "sentry" integration (zerver/webhooks/sentry): error and message events (from an
 * internal integration's alert rule, or from the plain WebHooks plugin, whose payload Zulip
 * reshapes first), issue created/resolved/assigned/ignored, and the legacy payload without
 * `data`. Events from the deprecated Raven Python SDK are unsupported.
 */

/** Sentry's platform → the code block language Zulip uses for the traceback. */
const SYNTAX: Record<string, string> = { go: "go", java: "java", javascript: "javascript", node: "javascript", python: "python3", ruby: "ruby" };

/** A value as Python's str.format prints it. */
const fmt = (p: Payload): string => {
  if (p.value === undefined) p.str(); // a 400 naming the missing field
  return pyStr(p.value);
};

function tracebackLines(lines: Payload): string {
  return lines
    .optList()
    .map((line) => {
      const text = line.str();
      return text === "" ? "\n" : `     ${text}\n`;
    })
    .join("");
}

function isSampleEvent(event: Payload): boolean {
  return event.get("title").value === "This is an example Python exception";
}

function eventMessage(hook: WebhookInput, event: Payload, time: () => string): WebhookMessage {
  const title = fmt(event.get("title"));
  const platform = fmt(event.get("platform"));
  const syntax = SYNTAX[platform] ?? "";
  if (platform === "python" && !isSampleEvent(event)) {
    const version = Number.parseInt(fmt(event.get("version")), 10);
    if (version < 7) throw hook.unsupported("Raven SDK");
  }
  const head = (kind: string) =>
    `**${kind}:** [${title}](${fmt(event.get("web_url"))})\n\`\`\`quote\n**level:** ${fmt(event.get("level"))}\n**timestamp:** ${time()}\n`;
  if (event.has("exception")) {
    const filenameValue = event.get("metadata").dict().get("filename").value;
    const filename = typeof filenameValue === "string" ? filenameValue : undefined;
    let stacktrace: Payload | undefined;
    for (const value of event.at("exception.values").list().reverse()) {
      if (value.has("stacktrace")) {
        stacktrace = value.get("stacktrace");
        break;
      }
    }
    const base = `${head("New exception")}**filename:** ${pyStr(filenameValue ?? null)}\n\`\`\`\n`;
    if (stacktrace && pyTruthy(stacktrace.value) && filename) {
      const frame = stacktrace
        .get("frames")
        .list()
        .reverse()
        .find((f) => f.get("filename").value === filename);
      if (frame && frame.get("context_line").exists()) {
        const pre = tracebackLines(frame.get("pre_context"));
        const post = tracebackLines(frame.get("post_context"));
        const line = `${frame.get("context_line").str()}\n`;
        return { topic: title, content: `${base}\nTraceback:\n\`\`\`${syntax}\n${pre}---> ${line}${post}\`\`\`\n` };
      }
    }
    return { topic: title, content: base };
  }
  if (event.has("logentry")) return { topic: title, content: `${head("New message event")}\`\`\`\n` };
  throw hook.unsupported("unknown-event type");
}

function issueMessage(hook: WebhookInput, action: string, issue: Payload, actor: Payload): WebhookMessage {
  const title = fmt(issue.get("title"));
  const time = globalTime(issue.get("lastSeen").str());
  const assignedTo = issue.get("assignedTo");
  if (!issue.has("assignedTo")) assignedTo.str(); // required, as in Zulip
  let assignee = "No one";
  if (pyTruthy(assignedTo.value)) {
    const name = fmt(assignedTo.get("name"));
    assignee = assignedTo.get("type").value === "team" ? `team ${name}` : name;
  }
  switch (action) {
    case "created":
      return {
        topic: title,
        content: `**New issue created:** ${title}\n\`\`\`quote\n**level:** ${fmt(issue.get("level"))}\n**timestamp:** ${time}\n**assignee:** ${assignee}\n\`\`\``,
      };
    case "resolved":
      return { topic: title, content: `Issue **${title}** was marked as resolved by **${fmt(actor.get("name"))}**.` };
    case "assigned":
      return { topic: title, content: `Issue **${title}** has now been assigned to **${assignee}** by **${fmt(actor.get("name"))}**.` };
    case "ignored":
      return { topic: title, content: `Issue **${title}** was ignored by **${fmt(actor.get("name"))}**.` };
    default:
      throw hook.unsupported(`${action} action`);
  }
}

/** Python's repr of a list of strings, as Zulip names an unknown `data` in its error. */
const pyListRepr = (items: string[]) => `[${items.map((s) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`).join(", ")}]`;

function handle(hook: WebhookInput): WebhookMessage {
  const { payload } = hook;
  payload.dict();
  const data = payload.get("data");
  if (data.exists()) {
    if (pyTruthy(data.value)) {
      data.dict();
      if (data.has("event")) {
        const event = data.get("event");
        return eventMessage(hook, event, () => globalTime(event.get("datetime").str()));
      }
      if (data.has("issue")) return issueMessage(hook, payload.get("action").str(), data.get("issue"), payload.get("actor"));
      throw hook.unsupported(pyListRepr(data.keys()));
    }
  } else {
    // The WebHooks plugin: the event at the top level, with no web URL or ISO time of its own.
    const event = payload.get("event");
    if (pyTruthy(event.get("event_id").value)) {
      const eventId = pyStr(event.get("event_id").value);
      const webUrl = new URL(`events/${eventId}/`, payload.get("url").str()).toString();
      const timestamp = event.has("timestamp") ? event.get("timestamp").num() : event.get("received").num();
      const reshaped = new Payload({ ...(event.value as Record<string, unknown>), web_url: webUrl }, event.path);
      return eventMessage(hook, reshaped, () => globalTimeFromUnix(timestamp));
    }
  }
  // The legacy payload.
  const content = `New [issue](${pyStr(payload.get("url").value ?? null)}) (level: ${payload.get("level").str().toUpperCase()}):\n\n\`\`\` quote\n${pyStr(payload.get("message").value ?? null)}\n\`\`\``;
  return { topic: pyStr(payload.get("project_name").value ?? null), content };
}

export default defineIntegration({
  name: "sentry",
  displayName: "Sentry",
  categories: ["monitoring"],
  setup:
    "In Sentry, go to **Settings** → **Developer Settings** → **Create New Integration** → **Internal Integration**. " +
    "Set the **Webhook URL** to the URL generated here, enable **Alert Rule Action**, and (for issue notifications) tick **issue** under **Webhooks**. " +
    "Then create an alert rule whose action sends a notification via that integration. " +
    "Sentry's simpler **WebHooks** plugin also works, but sends fewer kinds of events.",
  handle,
});
