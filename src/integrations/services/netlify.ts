import type { Payload } from "../payload.js";
import { defineIntegration } from "../types.js";

/** What follows "The build … on branch …" for each X-Netlify-Event. */
const ENDINGS: Record<string, (payload: Payload) => string> = {
  deploy_failed: (p) => p.get("error_message").str(),
  deploy_locked: () => "is now locked.",
  deploy_unlocked: () => "is now unlocked.",
  deploy_building: (p) => `is now ${p.get("state").str()}.`,
  deploy_created: (p) => `is now ${p.get("state").str()}.`,
};

/** Zulip's "netlify" integration: deploy notifications, in a topic named for the branch. */
export default defineIntegration({
  name: "netlify",
  displayName: "Netlify",
  categories: ["continuous-integration", "deployment"],
  allEventTypes: Object.keys(ENDINGS),
  setup:
    "In your site's settings on Netlify, open **Build & deploy** → **Deploy notifications**, click **Add notification** and " +
    "choose **HTTP POST request**. Pick the event, set **URL to notify** to the URL, and save; repeat for each event to be told of.",
  handle: (hook) => {
    const { payload, unsupported } = hook;
    // Not destructured: eventHeader reads the header through `this`.
    const event = hook.eventHeader("X-Netlify-Event");
    const ending = Object.hasOwn(ENDINGS, event) ? ENDINGS[event] : undefined;
    if (!ending) throw unsupported(event);
    const end = ending(payload);
    const name = payload.get("name").str();
    const url = payload.get("url").str();
    const branch = payload.get("branch").str();
    payload.get("state").str();
    return { topic: branch, content: `The build [${name}](${url}) on branch ${branch} ${end}`, eventType: event };
  },
});
