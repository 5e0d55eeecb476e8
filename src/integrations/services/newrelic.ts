import { badRequest } from "../../lib/errors.js";
import { isPyNumber, parsePyJson, pyStr } from "../python.js";
import { globalTimeFromMillis } from "../monitoringText.js";
import { Payload } from "../payload.js";
import { defineIntegration } from "../types.js";

/**
 * Zulip's "newrelic" integration: a New Relic workflow's incident notification (the default
 * webhook payload, or the template Zulip's documentation gives, with optional
 * `zulipCustomFields`), in a topic named for the incident's title. A payload missing one of
 * the fields the message needs is posted as a warning listing them.
 */
const STATES = ["CREATED", "ACTIVATED", "CLOSED"];

const PRIORITIES: Record<string, string> = {
  CRITICAL: ":red_circle:",
  HIGH: ":orange_circle:",
  MEDIUM: ":yellow:",
  LOW: ":blue_circle:",
};

const DEFAULT_NEWRELIC_URL = "https://one.newrelic.com/alerts-ai";

const EXPECTED_FIELDS = ["issueUrl", "title", "priority", "totalIncidents", "state", "createdAt", "updatedAt", "alertPolicyNames", "alertConditionNames"];

function oneOf(field: Payload, allowed: readonly string[]): string {
  const value = field.str();
  if (!allowed.includes(value)) throw badRequest(`Invalid ${field.path}`);
  return value;
}

/** Python's check_int, which also takes booleans. */
function pyInt(field: Payload): string {
  if (typeof field.value === "boolean") return pyStr(field.value);
  return String(field.int());
}

function codeList(field: Payload): string {
  return field
    .list()
    .map((item) => "`" + item.str() + "`")
    .join(", ");
}

/** A scalar Zulip shows as a custom field's value: int, float, string (bool counts as int), or None. */
function isScalar(value: unknown): boolean {
  return value === null || typeof value === "string" || typeof value === "boolean" || isPyNumber(value);
}

function customFields(payload: Payload): string {
  const fields = payload.get("zulipCustomFields");
  if (!payload.has("zulipCustomFields")) return "";
  let out = "";
  for (const key of fields.dict().keys()) {
    const name = key.charAt(0).toUpperCase() + key.slice(1).toLowerCase();
    const value = fields.get(key).value;
    let detail: string | undefined;
    if (isScalar(value)) detail = pyStr(value);
    else if (Array.isArray(value) && value.every(isScalar)) detail = value.map(pyStr).join(", ");
    out += detail === undefined ? `- **${name}**: *Value is not a supported data type*\n` : `- **${name}**: ${detail}\n`;
  }
  return out;
}

export default defineIntegration({
  name: "newrelic",
  displayName: "New Relic",
  webhookName: "NewRelic",
  categories: ["monitoring"],
  allEventTypes: STATES,
  setup: [
    "In New Relic, open **Alerts → Destinations** and add a **Webhook** destination whose",
    "**Endpoint URL** is the URL above. Then, in **Alerts → Workflows**, add a workflow that",
    "notifies that destination. The default payload works; to see who acknowledged an incident",
    "and your own fields, use a payload template with `id`, `issueUrl`, `title`, `priority`,",
    "`totalIncidents`, `state`, `createdAt`, `updatedAt`, `alertPolicyNames`,",
    "`alertConditionNames`, `owner` and a `zulipCustomFields` object.",
  ].join("\n"),
  handle(hook) {
    const payload = new Payload(parsePyJson(hook.rawBody));
    const missing = EXPECTED_FIELDS.filter((key) => !payload.has(key));
    if (missing.length > 0) {
      return {
        topic: "New Relic incident alerts",
        content: [
          `:danger: A New Relic [incident](${DEFAULT_NEWRELIC_URL}) updated`,
          "",
          "**Warning**: Unable to use the default notification format because at least one expected field was missing from the incident payload. See [New Relic integration documentation](/integrations/newrelic).",
          "",
          `**Missing fields**: ${missing.map((key) => "`" + key + "`").join(", ")}`,
        ].join("\n"),
      };
    }
    const priority = oneOf(payload.get("priority"), Object.keys(PRIORITIES));
    const conditions = codeList(payload.get("alertConditionNames"));
    const policies = codeList(payload.get("alertPolicyNames"));
    const owner = payload.get("owner").optStr();
    const acknowledged = owner && owner !== "N/A" ? `**Acknowledged by**: ${owner}` : "";
    const title = payload.get("title").str();
    const url = payload.get("issueUrl").str();
    const total = pyInt(payload.get("totalIncidents"));
    const state = oneOf(payload.get("state"), STATES);
    const created = globalTimeFromMillis(Number(pyInt(payload.get("createdAt"))));
    const updated = globalTimeFromMillis(Number(pyInt(payload.get("updatedAt"))));
    const details =
      `\n- **Alert policies**: ${policies}\n- **Conditions**: ${conditions}\n- **Total incidents**: ${total}\n` +
      `- **Incident created at**: ${created}\n` +
      customFields(payload);
    const content =
      `${PRIORITIES[priority]} **[${title}](${url})**\n\n` +
      "```quote\n" +
      `**Priority**: ${priority}\n**State**: ${state}\n**Updated at**: ${updated}\n${acknowledged}\n` +
      "```\n\n" +
      "```spoiler :file: Incident details\n" +
      details +
      "\n```";
    return { topic: title, content, eventType: state };
  },
});
