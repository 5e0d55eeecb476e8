import type { Payload } from "../payload.js";
import { pyStrListRepr } from "../python.js";
import { defineIntegration } from "../types.js";

/** Events Harbor sends that Zulip does not post. */
const IGNORED = ["DOWNLOAD_CHART", "DELETE_CHART", "UPLOAD_CHART", "PULL_ARTIFACT", "DELETE_ARTIFACT", "SCANNING_FAILED"];

const REPORT = "application/vnd.security.vulnerability.report; version=1.1";

function imageId(payload: Payload): string {
  const name = payload.at("event_data.repository.repo_full_name").str();
  const resource = payload.at("event_data.resources.0");
  return resource.has("tag") ? `${name}:${resource.get("tag").str()}` : `${name}@${resource.get("digest").str()}`;
}

const HANDLERS: Record<string, (payload: Payload, operator: string, unsupported: (eventType: string) => Error) => string> = {
  PUSH_ARTIFACT: (payload, operator) => `${operator} pushed image \`${imageId(payload)}\``,
  SCANNING_COMPLETED: (payload, _operator, unsupported) => {
    const overview = payload.at("event_data.resources.0.scan_overview");
    if (!overview.has(REPORT)) throw unsupported(pyStrListRepr(overview.dict().keys()));
    const summary = overview.get(REPORT).at("summary.summary").dict();
    const lines = summary.keys().map((severity) => `* ${severity}: **${summary.get(severity).int()}**`);
    const results = lines.length > 0 ? lines.join("\n") : "None";
    return `Image scan completed for \`${imageId(payload)}\`. Vulnerabilities by severity:\n\n${results}`;
  },
};

/** Zulip's "harbor" integration: image pushes and vulnerability scans, in a topic named for the repository. */
export default defineIntegration({
  name: "harbor",
  displayName: "Harbor",
  categories: ["deployment", "productivity"],
  allEventTypes: Object.keys(HANDLERS),
  unquoteUrlParameters: true,
  setup:
    "Harbor 1.9 or later: open a project on Harbor's **Projects** page, select its **Webhooks** tab, set **Endpoint URL** to the URL " +
    "and click **Continue**.",
  handle: ({ payload, unsupported }) => {
    // Zulip then looks for a Zulip user named "**<operator>**", which no one is.
    const operator = `**${payload.get("operator").str()}**`;
    const event = payload.get("type").str();
    const topic = payload.at("event_data.repository.repo_full_name").str();
    if (IGNORED.includes(event)) return null;
    const handler = Object.hasOwn(HANDLERS, event) ? HANDLERS[event] : undefined;
    if (!handler) throw unsupported(event);
    return { topic, content: handler(payload, operator, unsupported), eventType: event };
  },
});
