import { defineIntegration } from "../types.js";

/**
 * Zulip's "wekan" integration (zerver/webhooks/wekan): Wekan's outgoing webhook sends one
 * sentence and, on its last line, the link to the board or card; Zulip posts the sentence with
 * a "See in Wekan" link, always in the topic "Wekan Notification".
 */
export default defineIntegration({
  name: "wekan",
  displayName: "Wekan",
  categories: ["productivity"],
  setup: "In Wekan, open the board's hamburger menu → **Outgoing Webhooks**, paste the URL generated here, and save.",
  handle: ({ payload }) => {
    const text = payload.get("text").str();
    const url = text.split("\n").at(-1) ?? "";
    const body = text.split(url).join("").split("\n").join("");
    return { topic: "Wekan Notification", content: `${body}.\n\n[See in Wekan](${url})` };
  },
});
