import { badRequest } from "../../lib/errors.js";
import type { Payload } from "../payload.js";
import { defineIntegration } from "../types.js";

/** A string field or none (absent or null); any other value is Zulip's "Malformed payload". */
function optionalText(field: Payload): string | undefined {
  if (!field.exists()) return undefined;
  if (typeof field.value !== "string") throw badRequest("Malformed payload");
  return field.value;
}

/**
 * Zulip's "ifttt" integration (zerver/webhooks/ifttt/view.py): an applet's webhook action sends
 * {"topic": …, "content": …} (or the older "subject"), posted as it is.
 */
export default defineIntegration({
  name: "ifttt",
  displayName: "IFTTT",
  categories: ["meta-integration"],
  setup:
    'In an IFTTT applet, choose **Webhooks → Make a web request** as the action: the URL above, method POST, content type `application/json`, and a body like `{"topic": "…", "content": "…"}` (IFTTT\'s ingredients can fill both).',
  handle: ({ payload }) => {
    payload.dict();
    const topic = optionalText(payload.get("topic")) ?? optionalText(payload.get("subject"));
    const content = optionalText(payload.get("content"));
    if (topic === undefined) throw badRequest("Topic can't be empty");
    if (content === undefined) throw badRequest("Content can't be empty");
    return { topic, content };
  },
});
