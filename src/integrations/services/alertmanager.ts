import { badRequest } from "../../lib/errors.js";
import type { Payload } from "../payload.js";
import { defineIntegration, type WebhookMessage } from "../types.js";

/**
 * Zulip's "alertmanager" integration: the alerts of one Prometheus Alertmanager notification,
 * grouped by the label (or annotation) the URL's `name` option names (default `instance`) into
 * topics, one message per topic and status; each alert is described by the label or annotation
 * `desc` names (default `alertname`), linked to its graph.
 */

/** `labels.get(field, annotations.get(field, fallback))`, which must be a string. */
function labelOrAnnotation(labels: Payload, annotations: Payload, field: string, fallback: string): string {
  if (labels.has(field)) return labels.get(field).str();
  if (annotations.has(field)) return annotations.get(field).str();
  return fallback;
}

export default defineIntegration({
  name: "alertmanager",
  displayName: "Prometheus Alertmanager",
  webhookName: "Alertmanager",
  categories: ["monitoring"],
  urlOptions: [
    { name: "name", label: "The label or annotation whose value names the topic (default: instance)", kind: "string" },
    { name: "desc", label: "The label or annotation that describes each alert (default: alertname)", kind: "string" },
  ],
  setup: [
    "In Alertmanager's configuration, add a receiver with a `webhook_configs` entry whose `url` is",
    "the URL above, and route the alerts you want to it. Alerts are grouped into topics by their",
    "`instance` label and described by their `alertname`; add `&name=<label>` or `&desc=<label>`",
    "to the URL to use other labels or annotations.",
  ].join("\n"),
  handle(hook) {
    const nameField = hook.query("name") ?? "instance";
    const descField = hook.query("desc") ?? "alertname";
    const topics = new Map<string, { firing: string[]; resolved: string[] }>();
    for (const alert of hook.payload.get("alerts").list()) {
      const labels = alert.get("labels");
      const annotations = alert.get("annotations");
      const name = labelOrAnnotation(labels, annotations, nameField, "(unknown)");
      const desc = labelOrAnnotation(labels, annotations, descField, `<missing field: ${descField}>`);
      const url = alert.get("generatorURL").str().replaceAll("tab=1", "tab=0");
      const status = alert.get("status").str();
      if (status !== "firing" && status !== "resolved") throw badRequest(`Invalid ${alert.get("status").path}`);
      let group = topics.get(name);
      if (!group) topics.set(name, (group = { firing: [], resolved: [] }));
      group[status].push(`${desc} ([source](${url}))`);
    }
    const messages: WebhookMessage[] = [];
    for (const [topic, group] of topics) {
      for (const [icon, title, lines] of [
        [":alert:", "FIRING", group.firing],
        [":squared_ok:", "Resolved", group.resolved],
      ] as const) {
        if (lines.length === 0) continue;
        const content = lines.length === 1 ? `${icon} **${title}** ${lines[0]}` : `${icon} **${title}**\n` + lines.map((line) => `* ${line}`).join("\n");
        messages.push({ topic, content });
      }
    }
    return messages;
  },
});
