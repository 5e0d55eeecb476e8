import { badRequest } from "../../lib/errors.js";
import type { Payload } from "../payload.js";
import { defineIntegration } from "../types.js";

/**
 * Zulip's "uptimerobot" integration: a monitor going down or coming back up, from the JSON
 * body of an UptimeRobot webhook alert contact, in a topic named for the monitor. A payload
 * missing a field is "Invalid payload".
 */
function field(payload: Payload, name: string): string | undefined {
  const value = payload.get(name).value;
  return typeof value === "string" ? value : undefined;
}

/** Zulip's MISCONFIGURED_PAYLOAD_ERROR_MESSAGE, to the bot's owner (at most once a minute). */
const misconfiguredPayloadNotice = (botName: string, supportEmail: string) =>
  `Hi there! Your bot ${botName} just received a Uptime Robot payload that is missing
some data that Zulip requires. This usually indicates a configuration issue
in your Uptime Robot webhook settings. Please make sure that you set the required parameters
when configuring the Uptime Robot webhook. Contact ${supportEmail} if you
need further help!`;

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
  async handle(hook) {
    const { payload } = hook;
    const type = payload.get("alert_type_friendly_name").str();
    if (type !== "Up" && type !== "Down") throw hook.unsupported(type);
    const name = field(payload, "monitor_friendly_name");
    const url = field(payload, "monitor_url");
    const details = field(payload, "alert_details");
    const duration = type === "Up" ? field(payload, "alert_friendly_duration") : "";
    if (name === undefined || url === undefined || details === undefined || duration === undefined) {
      await hook.notifyBotOwner(misconfiguredPayloadNotice(hook.bot.fullName, hook.supportEmail));
      throw badRequest("Invalid payload");
    }
    if (type === "Up") {
      return { topic: name, content: `${name} (${url}) is back UP (${details}).\nIt was down for ${duration}.`, eventType: "up" };
    }
    return { topic: name, content: `${name} (${url}) is DOWN (${details}).`, eventType: "down" };
  },
});
