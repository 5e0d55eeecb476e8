import { badRequest } from "../../lib/errors.js";
import { defineIntegration } from "../types.js";

/**
 * Zulip's "zapier" integration (zerver/webhooks/zapier/view.py): a Zap's webhook sends
 * {"topic": …, "content": …} (or the older "subject"); Zulip's Zapier app first checks its
 * credentials with {"type": "auth"}, answered with the bot's name, email and id. Spaces Zapier
 * leaves inside a link are taken out, as Zulip's sanitize_links does (from the link to the end
 * of the text).
 */
const LINK_WITH_SPACES = /https?:\/\/\S+(?:\s+\S+)*/g;

export function sanitizeLinks(content: string): string {
  return content.replace(LINK_WITH_SPACES, (url) => url.replace(/\s+/g, ""));
}

export default defineIntegration({
  name: "zapier",
  displayName: "Zapier",
  categories: ["meta-integration"],
  notifyOwnerOnInvalidJson: false,
  setup:
    "In a Zap, add Zulip's **Zulip** app as an action and give it this bot's email and API key, or use **Webhooks by Zapier → POST** to the URL above with a JSON body of `topic` and `content`.",
  handle: ({ payload, bot }) => {
    payload.dict();
    if (payload.get("type").optStr() === "auth") {
      return { messages: [], response: { full_name: bot.fullName, email: bot.email, id: bot.id } };
    }
    const topic = payload.get("topic").optStr() ?? payload.get("subject").optStr();
    const content = payload.get("content").optStr();
    if (topic === undefined) throw badRequest("Topic can't be empty");
    if (content === undefined) throw badRequest("Content can't be empty");
    return { topic, content: sanitizeLinks(content) };
  },
});
