import { badRequest } from "../../lib/errors.js";
import type { Payload } from "../payload.js";
import { defineIntegration } from "../types.js";

/**
 * Zulip's "uptimerobot" integration: a monitor going down or coming back up, from the JSON
 * body of an UptimeRobot webhook alert contact, in a topic named for the monitor. A payload
 * missing a field is "Invalid payload".
 */
function field(payload: Payload, name: string): string {
  const value = payload.get(name).value;
  if (typeof value !== "string") throw badRequest("Invalid payload");
  return value;
}

export default defineIntegration({
  name: "uptimerobot",
  displayName: "UptimeRobot",
  categories: ["monitoring"],
  allEventTypes: ["up", "down"],
  setup: [
    "In UptimeRobot, open **My Settings** and add an **Alert Contact** of type **Webhook**. Set",
    "**URL to Notify** to the URL above, tick **Send as JSON (application/json)**, and set the POST",
    'value to `{"monitor_url": "*monitorURL*", "monitor_friendly_name": "*monitorFriendlyName*",',
    '"alert_type": "*alertType*", "alert_type_friendly_name": "*alertTypeFriendlyName*",',
    '"alert_details": "*alertDetails*", "alert_friendly_duration": "*alertFriendlyDuration*"}`.',
    "Then enable the alert contact on the monitors you want to hear about.",
  ].join("\n"),
  handle(hook) {
    const { payload } = hook;
    const type = payload.get("alert_type_friendly_name").str();
    if (type !== "Up" && type !== "Down") throw hook.unsupported(type);
    const name = field(payload, "monitor_friendly_name");
    const url = field(payload, "monitor_url");
    const details = field(payload, "alert_details");
    if (type === "Up") {
      const duration = field(payload, "alert_friendly_duration");
      return { topic: name, content: `${name} (${url}) is back UP (${details}).\nIt was down for ${duration}.`, eventType: "up" };
    }
    return { topic: name, content: `${name} (${url}) is DOWN (${details}).`, eventType: "down" };
  },
});
