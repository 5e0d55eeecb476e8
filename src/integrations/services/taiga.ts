import type { Payload } from "../payload.js";
import { pyTruthy } from "../python.js";
import { optString } from "../trackerText.js";
import { defineIntegration, type WebhookInput, type WebhookMessage } from "../types.js";

/**
 * Zulip's "taiga" integration (zerver/webhooks/taiga): epics, related user stories, user
 * stories, sprints (milestones), tasks and issues created, changed (one line per changed
 * field, plus one for a comment; the lines sorted as Zulip sorts them) and deleted, and
 * Taiga's webhook test. The topic is the sprint's name, or "General".
 */

type Values = Record<string, string>;

const TEMPLATES: Record<string, Record<string, string>> = {
  epic: {
    create: "{user} created epic {subject}.",
    set_assigned_to: "{user} assigned epic {subject} to {new}.",
    unset_assigned_to: "{user} unassigned epic {subject}.",
    changed_assigned_to: "{user} reassigned epic {subject} from {old} to {new}.",
    blocked: "{user} blocked epic {subject}.",
    unblocked: "{user} unblocked epic {subject}.",
    changed_status: "{user} changed status of epic {subject} from {old} to {new}.",
    renamed: "{user} renamed epic from **{old}** to **{new}**.",
    description_diff: "{user} updated description of epic {subject}.",
    commented: "{user} commented on epic {subject}.",
    delete: "{user} deleted epic {subject}.",
  },
  relateduserstory: {
    create: "{user} added a related user story {userstory_subject} to the epic {epic_subject}.",
    delete: "{user} removed a related user story {userstory_subject} from the epic {epic_subject}.",
  },
  userstory: {
    create: "{user} created user story {subject}.",
    set_assigned_to: "{user} assigned user story {subject} to {new}.",
    unset_assigned_to: "{user} unassigned user story {subject}.",
    changed_assigned_to: "{user} reassigned user story {subject} from {old} to {new}.",
    points: "{user} changed estimation of user story {subject}.",
    blocked: "{user} blocked user story {subject}.",
    unblocked: "{user} unblocked user story {subject}.",
    set_milestone: "{user} added user story {subject} to sprint {new}.",
    unset_milestone: "{user} removed user story {subject} from sprint {old}.",
    changed_milestone: "{user} changed sprint of user story {subject} from {old} to {new}.",
    changed_status: "{user} changed status of user story {subject} from {old} to {new}.",
    closed: "{user} closed user story {subject}.",
    reopened: "{user} reopened user story {subject}.",
    renamed: "{user} renamed user story from {old} to **{new}**.",
    description_diff: "{user} updated description of user story {subject}.",
    commented: "{user} commented on user story {subject}.",
    delete: "{user} deleted user story {subject}.",
    due_date: "{user} changed due date of user story {subject} from {old} to {new}.",
    set_due_date: "{user} set due date of user story {subject} to {new}.",
  },
  milestone: {
    create: "{user} created sprint {subject}.",
    renamed: "{user} renamed sprint from {old} to **{new}**.",
    estimated_start: "{user} changed estimated start of sprint {subject} from {old} to {new}.",
    estimated_finish: "{user} changed estimated finish of sprint {subject} from {old} to {new}.",
    set_estimated_start: "{user} changed estimated start of sprint {subject} to {new}.",
    set_estimated_finish: "{user} set estimated finish of sprint {subject} to {new}.",
    delete: "{user} deleted sprint {subject}.",
  },
  task: {
    create: "{user} created task {subject}.",
    set_assigned_to: "{user} assigned task {subject} to {new}.",
    unset_assigned_to: "{user} unassigned task {subject}.",
    changed_assigned_to: "{user} reassigned task {subject} from {old} to {new}.",
    blocked: "{user} blocked task {subject}.",
    unblocked: "{user} unblocked task {subject}.",
    changed_status: "{user} changed status of task {subject} from {old} to {new}.",
    renamed: "{user} renamed task {old} to **{new}**.",
    description_diff: "{user} updated description of task {subject}.",
    set_milestone: "{user} added task {subject} to sprint {new}.",
    commented: "{user} commented on task {subject}.",
    delete: "{user} deleted task {subject}.",
    changed_us: "{user} moved task {subject} from user story {old} to {new}.",
    due_date: "{user} changed due date of task {subject} from {old} to {new}.",
    set_due_date: "{user} set due date of task {subject} to {new}.",
  },
  issue: {
    create: "{user} created issue {subject}.",
    set_assigned_to: "{user} assigned issue {subject} to {new}.",
    unset_assigned_to: "{user} unassigned issue {subject}.",
    changed_assigned_to: "{user} reassigned issue {subject} from {old} to {new}.",
    set_milestone: "{user} added issue {subject} to sprint {new}.",
    unset_milestone: "{user} detached issue {subject} from sprint {old}.",
    changed_priority: "{user} changed priority of issue {subject} from {old} to {new}.",
    changed_severity: "{user} changed severity of issue {subject} from {old} to {new}.",
    changed_status: "{user} changed status of issue {subject} from {old} to {new}.",
    changed_type: "{user} changed type of issue {subject} from {old} to {new}.",
    renamed: "{user} renamed issue {old} to **{new}**.",
    description_diff: "{user} updated description of issue {subject}.",
    commented: "{user} commented on issue {subject}.",
    delete: "{user} deleted issue {subject}.",
    due_date: "{user} changed due date of issue {subject} from {old} to {new}.",
    set_due_date: "{user} set due date of issue {subject} to {new}.",
    blocked: "{user} blocked issue {subject}.",
    unblocked: "{user} unblocked issue {subject}.",
  },
  webhook_test: {
    test: "{user} triggered a test of the Taiga integration.",
  },
};

interface TaigaEvent {
  type: string;
  event: string;
  values: Values;
}

const displayUser = (message: Payload) => `[${message.at("by.full_name").str()}](${message.at("by.permalink").str()})`;

/** The item, linked to its Taiga page when the payload gives one, else in bold. */
function subject(message: Payload, field?: string): string {
  const data = field === undefined ? message.get("data") : message.get("data").get(field);
  const text = optString(data.get("subject")) || data.get("name").str();
  const permalink = optString(data.get("permalink"));
  return permalink ? `[${text}](${permalink})` : `**${text}**`;
}

function oldAndNew(change: string, message: Payload): [string, string] {
  const diff = message.at("change.diff").get(change);
  return [optString(diff.get("from")) || "", optString(diff.get("to")) || ""];
}

function changeEvent(change: string, message: Payload): TaigaEvent | null {
  const values: Values = { user: displayUser(message), subject: subject(message) };
  let event: string;
  switch (change) {
    case "description_diff":
    case "points":
      event = change;
      break;
    case "milestone":
    case "assigned_to":
    case "estimated_finish":
    case "estimated_start":
    case "due_date": {
      const [old, next] = oldAndNew(change, message);
      if (!old) {
        event = `set_${change}`;
        values.new = next;
      } else if (!next && (change === "milestone" || change === "assigned_to")) {
        event = `unset_${change}`;
        values.old = old;
      } else if (old !== next) {
        event = change.includes("date") || change.includes("estimated") ? change : `changed_${change}`;
        Object.assign(values, { old, new: next });
      } else return null;
      break;
    }
    case "is_blocked":
    case "is_closed": {
      const to = message.at("change.diff").get(change).get("to").bool();
      event = change === "is_blocked" ? (to ? "blocked" : "unblocked") : to ? "closed" : "reopened";
      break;
    }
    case "user_story":
      event = "changed_us";
      [values.old, values.new] = oldAndNew(change, message);
      break;
    case "subject":
    case "name":
      event = "renamed";
      [values.old, values.new] = oldAndNew(change, message);
      break;
    case "priority":
    case "severity":
    case "type":
    case "status":
      event = `changed_${change}`;
      [values.old, values.new] = oldAndNew(change, message);
      break;
    default:
      return null;
  }
  return { type: message.get("type").str(), event, values };
}

function parse(message: Payload): TaigaEvent[] {
  const events: TaigaEvent[] = [];
  const action = message.get("action").str();
  if (action === "create" || action === "delete") {
    const type = message.get("type").str();
    const values: Values = { user: displayUser(message) };
    if (type === "relateduserstory") {
      values.epic_subject = subject(message, "epic");
      values.userstory_subject = subject(message, "user_story");
    } else values.subject = subject(message);
    events.push({ type, event: action, values });
  } else if (action === "change") {
    const diff = message.at("change.diff");
    if (pyTruthy(diff.value)) {
      for (const key of diff.dict().keys()) {
        const parsed = changeEvent(key, message);
        if (parsed) events.push(parsed);
      }
    }
    if (message.at("change.comment").str())
      events.push({ type: message.get("type").str(), event: "commented", values: { user: displayUser(message), subject: subject(message) } });
  } else if (action === "test") {
    events.push({ type: "webhook_test", event: "test", values: { user: displayUser(message) } });
  }
  return events;
}

function render(hook: WebhookInput, event: TaigaEvent): string {
  const template = TEMPLATES[event.type]?.[event.event];
  if (template === undefined) throw hook.unsupported(`${event.type}:${event.event}`);
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => event.values[key] ?? whole);
}

function handle(hook: WebhookInput): WebhookMessage {
  const message = hook.payload;
  const lines = parse(message).map((event) => `${render(hook, event)}\n`);
  // Python's sorted(): by code point.
  lines.sort((a, b) => {
    const x = [...a].map((c) => c.codePointAt(0) ?? 0);
    const y = [...b].map((c) => c.codePointAt(0) ?? 0);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
    return x.length - y.length;
  });
  const milestone = message.at("data").get("milestone");
  const topic = pyTruthy(milestone.value) && milestone.has("name") ? milestone.get("name").str() : "General";
  return { topic, content: lines.join("") };
}

export default defineIntegration({
  name: "taiga",
  displayName: "Taiga",
  categories: ["project-management"],
  setup:
    "In Taiga, open your project's **Settings** → **Integrations** → **Webhooks** and click **Add a new webhook**. " +
    "Give it a name, paste the URL generated here, and enter any value as the secret key (Zulip does not check it). Save.",
  handle,
});
