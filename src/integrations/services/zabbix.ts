import { badRequest } from "../../lib/errors.js";
import { defineIntegration } from "../types.js";

/**
 * Zulip's "zabbix" integration: the JSON the Zulip media type's script sends for a trigger,
 * posted in a topic named for the host. A payload missing a field is "Invalid payload".
 */
const FIELDS = ["hostname", "severity", "status", "item", "trigger", "link"] as const;

/** Zulip's MISCONFIGURED_PAYLOAD_ERROR_MESSAGE, to the bot's owner (at most once a minute). */
const misconfiguredPayloadNotice = (botName: string, supportEmail: string) =>
  `Hi there! Your bot ${botName} just received a Zabbix payload that is missing
some data that Zulip requires. This usually indicates a configuration issue
in your Zabbix webhook settings. Please make sure that you set the
script correctly and provide all the required parameters
when configuring the Zabbix webhook. Contact ${supportEmail} if you
need further help!`;

export default defineIntegration({
  name: "zabbix",
  displayName: "Zabbix",
  categories: ["monitoring"],
  setup: [
    "In Zabbix, add a media type of type **Webhook** (Administration → Media types) whose script",
    "POSTs the message to the URL above, with a **Problem** message template whose body is the JSON",
    '`{"hostname": "{HOST.NAME}", "severity": "{TRIGGER.SEVERITY}", "status": "{TRIGGER.STATUS}",',
    '"item": "{ITEM.NAME1} is {ITEM.VALUE1}", "trigger": "{TRIGGER.NAME}", "link":',
    '"{$ZABBIX_URL}/tr_events.php?triggerid={TRIGGER.ID}&eventid={EVENT.ID}"}`. Then give a user',
    "that media and add an action that sends messages to that user.",
  ].join("\n"),
  async handle({ payload, bot, supportEmail, notifyBotOwner }) {
    const data: Record<string, string> = {};
    for (const field of FIELDS) {
      const value = payload.get(field).value;
      if (typeof value !== "string") {
        await notifyBotOwner(misconfiguredPayloadNotice(bot.fullName, supportEmail));
        throw badRequest("Invalid payload");
      }
      data[field] = value;
    }
    return {
      topic: data.hostname ?? "",
      content: `${data.status} (${data.severity}) alert on [${data.hostname}](${data.link}):\n* ${data.trigger}\n* ${data.item}`,
    };
  },
});
