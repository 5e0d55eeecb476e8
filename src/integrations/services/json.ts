import { defineIntegration } from "../types.js";

/** Zulip's "json" integration: the payload, pretty-printed in a code block, topic "JSON". */
export default defineIntegration({
  name: "json",
  displayName: "JSON formatter",
  webhookName: "JSON",
  categories: ["misc"],
  setup: "Point any service that can send a JSON webhook at the URL: each payload is posted, pretty-printed, in a code block.",
  handle: ({ payload }) => ({ topic: "JSON", content: "```json\n" + JSON.stringify(payload.value, null, 2) + "\n```" }),
});
