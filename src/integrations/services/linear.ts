import type { Payload } from "../payload.js";
import { optString } from "../trackerText.js";
import { defineIntegration, type WebhookInput, type WebhookMessage } from "../types.js";

/**
 * Zulip's "linear" integration (zerver/webhooks/linear): issues and sub-issues, comments,
 * projects and project status updates. Label, cycle and reaction events are ignored; Linear's
 * automatic project updates that carry no change a person made post nothing.
 */

const quote = (text: string) => `\n~~~ quote\n${text}\n~~~\n`;

const HEALTH_LABELS: Record<string, string> = { onTrack: "On Track", atRisk: "At Risk", offTrack: "Off Track" };
const PRIORITY_LABELS: Record<number, string> = { 1: "Urgent", 2: "High", 3: "Medium", 4: "Low" };

type LinearEvent = "issue" | "sub_issue" | "comment" | "project" | "project_update";

function issueMessage(payload: Payload, event: LinearEvent): string {
  const data = payload.get("data");
  const type = event === "issue" ? "Issue" : "Sub-Issue";
  // Zulip reads the number and title for its template even where the text leaves them out.
  data.get("number").int();
  data.get("title").str();
  const team = data.at("team.name").str();
  const action = payload.get("action").str();
  if (action === "remove") return `This issue has been removed from team ${team}.`;
  let message = `[${type}](${payload.get("url").str()}) was ${action === "create" ? "created" : "updated"} in team ${team}`;
  message += data.has("description") ? `:${quote(data.get("description").str())}` : ".";
  const parts: string[] = [];
  const priority = data.get("priorityLabel").str();
  if (priority !== "No priority") parts.push(`Priority: ${priority}`);
  if (data.has("assignee")) parts.push(`Assignee: ${data.at("assignee.name").str()}`);
  parts.push(`Status: ${data.at("state.name").str()}`);
  return `${message}\n${parts.join(", ")}.`;
}

function commentMessage(payload: Payload): string {
  const data = payload.get("data");
  const user = data.at("user.name").str();
  const action = payload.get("action").str();
  if (action === "remove") return `${user} has removed a comment.`;
  const verb = action === "create" ? "commented" : "updated comment";
  return `${user} [${verb}](${payload.get("url").str()}) on issue **${data.at("issue.title").str()}**:${quote(data.get("body").str())}`;
}

const PROJECT_CHANGE_FIELDS = ["name", "statusId", "leadId", "priority", "startDate", "targetDate", "content"] as const;

/** What a person changed in a project, in Zulip's words; empty when nothing worth a message. */
function projectChanges(payload: Payload): string[] {
  const data = payload.get("data");
  const from = payload.get("updatedFrom");
  const changes: string[] = [];
  for (const key of PROJECT_CHANGE_FIELDS) {
    if (!from.has(key)) continue;
    if (key === "name") changes.push(`renamed to ${data.get("name").str()}`);
    else if (key === "statusId") {
      if (data.get("status").exists()) changes.push(`project status is now ${data.at("status.name").str()}`);
    } else if (key === "leadId") {
      if (data.get("lead").exists()) changes.push(`${data.at("lead.name").str()} is now the project lead`);
    } else if (key === "priority") {
      const label = PRIORITY_LABELS[data.get("priority").int()];
      if (label) changes.push(`priority is now set to ${label}`);
    } else if (key === "startDate" || key === "targetDate") {
      const label = key === "targetDate" ? "target date" : "start date";
      const next = optString(data.get(key));
      if (next !== undefined) {
        const before = optString(from.get(key));
        if (before === undefined) changes.push(`${label} is set to ${next}`);
        else if (next < before) changes.push(`${label} is preponed to ${next}`);
        else changes.push(`${label} is postponed to ${next}`);
      }
    } else changes.push("description is updated");
  }
  return changes;
}

function projectCreated(payload: Payload, actor: string, name: string, url: string): string {
  const data = payload.get("data");
  let message = `${actor} created project [${name}](${url})`;
  const description = data.has("description") ? data.get("description").str() : "";
  const inline: string[] = [];
  if (data.get("status").exists()) inline.push(`**Status:** ${data.at("status.name").str()}`);
  if (data.get("lead").exists()) inline.push(`**Lead:** ${data.at("lead.name").str()}`);
  if (data.has("priority")) {
    const label = PRIORITY_LABELS[data.get("priority").int()];
    if (label) inline.push(`**Priority:** ${label}`);
  }
  const dates: string[] = [];
  for (const [field, label] of [
    ["startDate", "Start date"],
    ["targetDate", "Target date"],
  ] as const) {
    if (!data.has(field)) continue;
    const value = optString(data.get(field));
    if (value) dates.push(`**${label}:** ${value}`);
  }
  let bullets: string[] = [];
  if (data.has("milestones")) {
    const names = data
      .get("milestones")
      .list()
      .map((m) => m.get("name").str());
    if (names.length > 0) bullets.push(`**${names.length === 1 ? "Milestone" : "Milestones"}:** ${names.join(", ")}`);
  }
  if (description) {
    message += `:${quote(dates.length > 0 ? `${description}\n${dates.join(" – ")}` : description)}`;
  } else bullets = [...dates, ...bullets];
  const lines = [...(inline.length > 0 ? [inline.join(" · ")] : []), ...bullets.map((b) => `- ${b}`)];
  if (lines.length === 0) return description ? message : `${message}.`;
  return description ? message + lines.join("\n") : `${message}\n${lines.join("\n")}`;
}

function projectMessage(payload: Payload): string {
  const action = payload.get("action").str();
  const actor = payload.at("actor.name").str();
  const name = payload.at("data.name").str();
  if (action === "remove") return `${actor} removed project **${name}**.`;
  const url = payload.get("url").str();
  if (action === "create") return projectCreated(payload, actor, name, url);
  const sentence = projectChanges(payload).join(", ");
  return `${actor} updated project [${name}](${url}).\n${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;
}

function projectUpdateMessage(payload: Payload): string {
  const data = payload.get("data");
  const action = payload.get("action").str();
  const user = data.at("user.name").str();
  const project = data.at("project.name").str();
  if (action === "remove") return `${user} removed a status update on **${project}**.`;
  const health = data.get("health").str();
  let message = `${user} [${action === "create" ? "posted" : "edited"}](${payload.get("url").str()}) a status update on **${project}** (health: ${HEALTH_LABELS[health] ?? health}):`;
  message += quote(data.get("body").str());
  if (data.has("diffMarkdown")) {
    const diff = optString(data.get("diffMarkdown"));
    if (diff) message += `\n${diff}`;
  }
  return message;
}

const BODIES: Record<LinearEvent, (payload: Payload, event: LinearEvent) => string> = {
  issue: issueMessage,
  sub_issue: issueMessage,
  comment: commentMessage,
  project: projectMessage,
  project_update: projectUpdateMessage,
};

const IGNORED = new Set(["IssueLabel", "Cycle", "Reaction"]);

function eventType(hook: WebhookInput): LinearEvent | null {
  const { payload } = hook;
  const type = payload.get("type").str();
  if (type === "Issue") return payload.get("data").has("parentId") ? "sub_issue" : "issue";
  if (type === "Comment") return "comment";
  if (type === "Project") {
    if (payload.has("updatedFrom")) {
      if (payload.get("updatedFrom").has("lastUpdateId")) return null;
      if (projectChanges(payload).length === 0) return null;
    }
    return "project";
  }
  if (type === "ProjectUpdate") return "project_update";
  if (IGNORED.has(type)) return null;
  const action = payload.get("action");
  throw hook.unsupported(`${type}:${action.value === undefined ? "???" : action.str()}`);
}

function topic(payload: Payload, event: LinearEvent): string {
  const data = payload.get("data");
  switch (event) {
    case "comment":
      return `Issue: ${data.at("issue.title").str()}`;
    case "sub_issue":
      return `Sub-Issue: ${data.get("title").str()}`;
    case "issue":
      return `Issue: ${data.get("title").str()}`;
    case "project":
      return `Project: ${data.get("name").str()}`;
    case "project_update":
      return `Project: ${data.at("project.name").str()}`;
  }
}

function handle(hook: WebhookInput): WebhookMessage | null {
  const event = eventType(hook);
  if (event === null) return null;
  // Zulip passes no event type for Linear's messages, so only_events/exclude_events do not apply.
  return { topic: topic(hook.payload, event), content: BODIES[event](hook.payload, event) };
}

export default defineIntegration({
  name: "linear",
  displayName: "Linear",
  categories: ["project-management"],
  allEventTypes: Object.keys(BODIES),
  setup:
    "In Linear, open **Settings** → **API** → **Webhooks** and click **New webhook**. Paste the URL generated here, " +
    "choose the data change events you want (issues, comments, projects, project updates), and save.",
  handle,
});
