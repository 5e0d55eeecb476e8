import { badRequest } from "../../lib/errors.js";
import { defineIntegration } from "../types.js";

/**
 * Zulip's "opsgenie" integration: one message per alert action, in a topic named for the
 * Opsgenie integration that sent it, listing the fields the action carries.
 */
const FIELDS: ReadonlyArray<[string, string]> = [
  ["note", "Note"],
  ["recipient", "Recipient"],
  ["addedTags", "Tags added"],
  ["team", "Team added"],
  ["owner", "Assigned owner"],
  ["removedTags", "Tags removed"],
  ["message", "Message"],
  ["tags", "Tags"],
  ["escalationName", "Escalation"],
];

/** The `eu_region` option, read as Zulip's Json[bool]. */
function euRegion(text: string | undefined): boolean {
  if (text === undefined) return false;
  if (text === "true") return true;
  if (text === "false") return false;
  throw badRequest("eu_region is not a boolean");
}

export default defineIntegration({
  name: "opsgenie",
  displayName: "Opsgenie",
  categories: ["meta-integration", "monitoring"],
  allEventTypes: [
    "AddTeam",
    "UnAcknowledge",
    "AddNote",
    "TestAction",
    "Close",
    "Escalate",
    "AddRecipient",
    "RemoveTags",
    "Acknowledge",
    "Delete",
    "AddTags",
    "TakeOwnership",
    "Create",
    "AssignOwnership",
  ],
  urlOptions: [{ name: "eu_region", label: "Use Opsgenie's European service region", kind: "bool" }],
  setup: [
    "In Opsgenie, open **Settings → Integrations**, click **Add integration**, and choose",
    "**Webhook**. Name it (for example `Zulip`), set **Webhook URL** to the URL above, and save.",
    "If your Opsgenie account is in the EU region, add `&eu_region=true` to the URL so links",
    "point to app.eu.opsgenie.com.",
  ].join("\n"),
  handle(hook) {
    const { payload } = hook;
    const region = euRegion(hook.query("eu_region")) ? "eu." : "";
    const alertType = payload.get("action").str();
    const alert = payload.get("alert");
    const alertId = alert.get("alertId").str();
    const integrationName = payload.get("integrationName").str();
    const tags = (alert.has("tags") ? alert.get("tags").list() : []).map((tag) => "`" + tag.str() + "`").join(", ");
    let details = "";
    for (const [field, label] of FIELDS) {
      let value: string;
      if (field === "tags" && tags) value = tags;
      else if (field === "escalationName" && payload.has(field)) value = payload.get(field).str();
      else if (field !== "tags" && alert.has(field)) value = alert.get(field).str();
      else continue;
      details += `* **${label}**: ${value}\n`;
    }
    const content =
      `[Opsgenie alert for ${integrationName}](https://app.${region}opsgenie.com/alert/V2#/show/${alertId}):\n* **Type**: ${alertType}\n${details}`.trim();
    return { topic: integrationName, content, eventType: alertType };
  },
});
