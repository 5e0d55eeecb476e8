import { badRequest } from "../../lib/errors.js";
import { isPyNumber, parsePyJson, pyStr, pyTruthy } from "../python.js";
import { globalTimeFromIso } from "../monitoringText.js";
import { Payload } from "../payload.js";
import { defineIntegration, type WebhookMessage } from "../types.js";

/**
 * Zulip's "grafana" integration: Grafana 8+ unified alerting (a payload with `alerts`, one
 * message per alert, topic `[alertname]`) and Grafana 7 legacy alerts (topic the alert's title).
 */
const LEGACY_STATES = ["no_data", "paused", "alerting", "ok", "pending", "unknown"];

function oneOf(field: Payload, allowed: readonly string[]): string {
  const value = field.str();
  if (!allowed.includes(value)) throw badRequest(`Invalid ${field.path}`);
  return value;
}

/** A dict's entries, in order ("for key, value in x.items()"). */
function entries(field: Payload): Array<[string, Payload]> {
  return field
    .dict()
    .keys()
    .map((key) => [key, field.get(key)]);
}

function unifiedAlert(alert: Payload): WebhookMessage {
  const status = oneOf(alert.get("status"), ["firing", "resolved"]);
  let body = status === "firing" ? ":alert: **FIRING**\n\n" : ":checkbox: **RESOLVED**\n\n";
  const labels = alert.get("labels");
  labels.dict();
  let topic: string;
  if (labels.has("alertname") && pyTruthy(labels.get("alertname").value)) {
    const alertname = labels.get("alertname").str();
    topic = `[${alertname}]`;
    body += `**${alertname}**\n\n`;
  } else {
    topic = `[${alert.get("fingerprint").str()}]`;
  }
  body += `This alert was fired at ${globalTimeFromIso(alert.get("startsAt").str(), alert.get("startsAt").path)}.`;
  const endsAt = alert.get("endsAt").str();
  if (endsAt !== "0001-01-01T00:00:00Z") body += `\n\nThis alert was resolved at ${globalTimeFromIso(endsAt, alert.get("endsAt").path)}.`;
  if (pyTruthy(labels.value)) {
    body +=
      "\n\nLabels:\n" +
      entries(labels)
        .map(([key, value]) => `- ${key}: ${value.str()}\n`)
        .join("") +
      "\n";
  }
  if (pyTruthy(alert.get("values").value)) {
    body +=
      "Values:\n" +
      entries(alert.get("values"))
        .map(([key, value]) => `- ${key}: ${pyStr(value.value)}\n`)
        .join("") +
      "\n";
  } else if (pyTruthy(alert.get("valueString").value)) {
    body += `Values:\n${alert.get("valueString").str()}\n\n`;
  }
  if (pyTruthy(alert.get("annotations").value)) {
    body +=
      "Annotations:\n" +
      entries(alert.get("annotations"))
        .map(([key, value]) => `- ${key}: ${value.str()}\n`)
        .join("");
  }
  if (pyTruthy(alert.get("generatorURL").value)) body += `\n[Generator](${alert.get("generatorURL").str()})`;
  if (pyTruthy(alert.get("silenceURL").value)) body += `\n[Silence](${alert.get("silenceURL").str()})`;
  if (pyTruthy(alert.get("imageURL").value)) body += `\n[Image](${alert.get("imageURL").str()})`;
  return { topic, content: body + "\n", eventType: status };
}

function legacyAlert(payload: Payload): WebhookMessage {
  const topic = payload.get("title").str();
  let evalMatches = "";
  if (payload.get("evalMatches").exists()) {
    for (const match of payload.get("evalMatches").list()) {
      const value = match.get("value");
      if (value.exists() && !isPyNumber(value.value) && typeof value.value !== "boolean") throw badRequest(`${value.path} is not a number`);
      evalMatches += `**${match.get("metric").str()}:** ${pyStr(value.value)}\n`;
    }
  }
  const message = payload.has("message") ? payload.get("message").str() + "\n\n" : "";
  const state = oneOf(payload.get("state"), LEGACY_STATES);
  const icon = state === "alerting" ? ":alert:" : state === "ok" ? ":squared_ok:" : ":info:";
  let body = `${icon} **${state.toUpperCase()}**\n\n[${payload.get("ruleName").str()}](${payload.get("ruleUrl").str()})\n\n${message}${evalMatches}`;
  if (payload.has("imageUrl")) body += `\n[Click to view visualization](${payload.get("imageUrl").str()})`;
  return { topic, content: body.trim(), eventType: state };
}

export default defineIntegration({
  name: "grafana",
  displayName: "Grafana",
  categories: ["monitoring"],
  allEventTypes: ["ok", "pending", "alerting", "paused", "firing", "resolved"],
  setup: [
    "In Grafana, open **Alerting → Contact points** and add a contact point of type **Webhook**",
    "with the URL above as its **URL** (HTTP method POST), then use that contact point in a",
    "notification policy. Each firing or resolved alert is posted in a topic named after the",
    "alert. Grafana 7's legacy alert notification channels (type webhook) work too.",
  ].join("\n"),
  handle(hook) {
    const payload = new Payload(parsePyJson(hook.rawBody));
    if (payload.has("alerts")) return payload.get("alerts").list().map(unifiedAlert);
    return legacyAlert(payload);
  },
});
