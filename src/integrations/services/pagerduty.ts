import type { Payload } from "../payload.js";
import { pyTruthy } from "../python.js";
import { defineIntegration, type WebhookInput, type WebhookMessage } from "../types.js";

/**
 * Zulip's "pagerduty" integration: incident events of PagerDuty's webhooks v1 (`messages` with
 * `type`), v2 (`messages` with `event`) and v3 (`event.event_type`), one message per event in
 * the topic "Incident <number>" (v3: "Incident <title> (#<number>)").
 */
const V1_ACTIONS: Record<string, string> = {
  "incident.trigger": "triggered",
  "incident.acknowledge": "acknowledged",
  "incident.unacknowledge": "unacknowledged",
  "incident.resolve": "resolved",
  "incident.assign": "assigned",
  "incident.escalate": "escalated",
  "incident.delegate": "delineated",
};

const V2_ACTIONS: Record<string, string> = {
  "incident.trigger": "triggered",
  "incident.acknowledge": "acknowledged",
  "incident.resolve": "resolved",
  "incident.assign": "assigned",
};

const V3_ACTIONS: Record<string, string> = {
  "incident.triggered": "triggered",
  "incident.acknowledged": "acknowledged",
  "incident.unacknowledged": "unacknowledged",
  "incident.resolved": "resolved",
  "incident.reassigned": "reassigned",
};

interface Incident {
  action: string;
  numTitle: string;
  url: string;
  serviceName: string;
  serviceUrl: string;
  assignee: string;
  agent?: string;
  trigger: string;
}

const agentLink = (name: string, url: string) => `[${name}](${url})`;

const quote = (text: string) => "``` quote\n" + text + "\n```";

/** The local part of an email address (Python's Address(addr_spec=…).username). */
function username(email: string): string {
  const at = email.lastIndexOf("@");
  return (at < 0 ? email : email.slice(0, at)).replace(/^"(.*)"$/, "$1");
}

function has<T>(table: Record<string, T>, key: string): boolean {
  return Object.hasOwn(table, key);
}

function v1Incident(message: Payload, type: string): Incident {
  const incident = message.at("data.incident");
  const assigned = incident.get("assigned_to_user");
  const resolver = incident.get("resolved_by_user");
  const trigger: string[] = [];
  const summary = incident.get("trigger_summary_data");
  if (pyTruthy(summary.value)) {
    const subject = summary.has("subject") ? summary.get("subject").str() : "";
    if (subject) trigger.push(subject);
    const description = summary.has("description") ? summary.get("description").str() : "";
    if (description) trigger.push(description);
  }
  return {
    action: V1_ACTIONS[type] ?? type,
    numTitle: String(incident.get("incident_number").int()),
    url: incident.get("html_url").str(),
    serviceName: incident.at("service.name").str(),
    serviceUrl: incident.at("service.html_url").str(),
    assignee: pyTruthy(assigned.value) ? agentLink(username(assigned.get("email").str()), assigned.get("html_url").str()) : "nobody",
    agent: pyTruthy(resolver.value) ? agentLink(username(resolver.get("email").str()), resolver.get("html_url").str()) : undefined,
    trigger: quote(trigger.join("\n")),
  };
}

function v2Incident(message: Payload, event: string): Incident {
  const incident = message.get("incident");
  const assignments = listOrNull(incident.get("assignments"));
  const assignee = assignments[0]?.get("assignee");
  const changedBy = incident.get("last_status_change_by");
  const description = incident.get("description").optStr();
  return {
    action: V2_ACTIONS[event] ?? event,
    numTitle: String(incident.get("incident_number").int()),
    url: incident.get("html_url").str(),
    serviceName: incident.at("service.name").str(),
    serviceUrl: incident.at("service.html_url").str(),
    assignee: assignee ? agentLink(assignee.get("summary").str(), assignee.get("html_url").str()) : "nobody",
    agent: changedBy.exists() ? agentLink(changedBy.get("summary").str(), changedBy.get("html_url").str()) : undefined,
    trigger: description === undefined ? "" : quote(description),
  };
}

function v3Incident(event: Payload, type: string): Incident {
  const data = event.get("data");
  const assignee = listOrNull(data.get("assignees"))[0];
  const agent = event.get("agent");
  return {
    action: V3_ACTIONS[type] ?? type,
    url: data.get("html_url").str(),
    numTitle: `${data.get("title").str()} (#${data.get("number").int()})`,
    serviceName: data.at("service.summary").str(),
    serviceUrl: data.at("service.html_url").str(),
    assignee: assignee ? agentLink(assignee.get("summary").str(), assignee.get("html_url").str()) : "nobody",
    agent: agent.exists() ? agentLink(agent.get("summary").str(), agent.get("html_url").str()) : undefined,
    trigger: "",
  };
}

/** A list Zulip reads as `if field:`: required, but null reads as empty. */
function listOrNull(field: Payload): Payload[] {
  return field.value === null ? [] : field.list();
}

function incidentMessage(type: string, i: Incident): WebhookMessage {
  const link = `Incident [${i.numTitle}](${i.url})`;
  let content: string;
  if (["incident.trigger", "incident.triggered", "incident.unacknowledge", "incident.unacknowledged"].includes(type)) {
    content = `${link} ${i.action} by [${i.serviceName}](${i.serviceUrl}) (assigned to ${i.assignee}).\n\n${i.trigger}`;
  } else if (type === "incident.resolve" || type === "incident.resolved") {
    content = i.agent !== undefined ? `${link} resolved by ${i.agent}.\n\n${i.trigger}` : `${link} resolved.\n\n${i.trigger}`;
  } else if (type === "incident.assign" || type === "incident.reassigned") {
    content = `${link} ${i.action} to ${i.assignee}.\n\n${i.trigger}`;
  } else {
    content = `${link} ${i.action} by ${i.assignee}.\n\n${i.trigger}`;
  }
  return { topic: `Incident ${i.numTitle}`, content, eventType: i.action };
}

function handle(hook: WebhookInput): WebhookMessage[] {
  const { payload } = hook;
  const out: WebhookMessage[] = [];
  const messages = payload.get("messages");
  if (messages.exists() && messages.list().length > 0) {
    for (const message of messages.list()) {
      const type = message.get("type").optStr();
      if (type === undefined) break;
      if (!has(V1_ACTIONS, type)) throw hook.unsupported(type);
      out.push(incidentMessage(type, v1Incident(message, type)));
    }
    for (const message of messages.list()) {
      const event = message.get("event").optStr();
      if (event === undefined) break;
      if (!has(V2_ACTIONS, event)) throw hook.unsupported(event);
      out.push(incidentMessage(event, v2Incident(message, event)));
    }
  } else if (payload.has("event")) {
    const event = payload.get("event");
    const type = event.get("event_type").optStr();
    if (type === undefined || !has(V3_ACTIONS, type)) throw hook.unsupported(type ?? "None");
    out.push(incidentMessage(type, v3Incident(event, type)));
  }
  return out;
}

export default defineIntegration({
  name: "pagerduty",
  displayName: "PagerDuty",
  categories: ["monitoring"],
  allEventTypes: ["resolved", "assigned", "unacknowledged", "acknowledged", "triggered", "reassigned"],
  setup: [
    "In PagerDuty, open **Integrations → Generic Webhooks (v3)** and click **Add Webhook**. Set",
    "**Webhook URL** to the URL above, choose the scope (a service or a team) and the incident",
    "events to send, and save. Older v1 and v2 webhooks are understood as well.",
  ].join("\n"),
  handle,
});
