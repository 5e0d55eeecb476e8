import { defineIntegration } from "../types.js";

/** Zulip's "homeassistant" integration: a Home Assistant REST notification, `message` in the topic `topic` (default "homeassistant"). */
export default defineIntegration({
  name: "homeassistant",
  displayName: "Home Assistant",
  webhookName: "HomeAssistant",
  categories: ["misc"],
  setup: [
    "In Home Assistant's `configuration.yaml`, add a `notify` service with `platform: rest`,",
    "`resource:` the URL above, `method: POST_JSON` and `title_param_name: topic`. Then call",
    "that service from an automation with `data:` holding a `message` (the message) and,",
    'optionally, a `title` (the topic; "homeassistant" when there is none).',
  ].join("\n"),
  handle({ payload }) {
    const content = payload.get("message").str();
    const topic = payload.has("topic") ? payload.get("topic").str() : "homeassistant";
    return { topic, content };
  },
});
