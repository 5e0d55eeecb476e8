import { defineIntegration } from "../types.js";

/**
 * Zulip's "pingdom" integration: a check's state change, in the topic "<check name> status.",
 * quoting Pingdom's description when a check goes from UP to DOWN.
 */
const CHECK_TYPES = ["HTTP", "HTTP_CUSTOM", "HTTPS", "SMTP", "POP3", "IMAP", "PING", "DNS", "UDP", "PORT_TCP"];

export default defineIntegration({
  name: "pingdom",
  displayName: "Pingdom",
  categories: ["monitoring"],
  allEventTypes: CHECK_TYPES,
  setup: [
    "In Pingdom, open **Integrations**, click **Add integration**, choose the type **Webhook**,",
    "name it (for example `Zulip`), set **URL** to the URL above, make sure it is active, and save.",
    "Then turn that integration on under **Connect Integrations** in each check you want posted.",
  ].join("\n"),
  handle(hook) {
    const { payload } = hook;
    const checkType = payload.get("check_type").str();
    if (!CHECK_TYPES.includes(checkType)) throw hook.unsupported(checkType);
    const topic = `${payload.get("check_name").str()} status.`;
    const current = payload.get("current_state").str();
    const previous = payload.get("previous_state").str();
    const head = `Service ${payload.at("check_params.hostname").str()} changed its ${checkType} status from ${previous} to ${current}`;
    const content = current === "DOWN" && previous === "UP" ? `${head}:\n\n\`\`\` quote\n${payload.get("long_description").str()}\n\`\`\`` : `${head}.`;
    return { topic, content, eventType: checkType };
  },
});
