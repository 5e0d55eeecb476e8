import { defineIntegration } from "../types.js";
import { GITHUB_EVENT_TYPES, handleGitHubWebhook } from "./github.js";

/**
 * Zulip's GitHub Sponsors integration: the GitHub webhook view at its own URL (Zulip's
 * "githubsponsors" entry points at api_github_webhook), for a sponsors dashboard's webhook.
 */
export default defineIntegration({
  name: "githubsponsors",
  displayName: "GitHub Sponsors",
  webhookName: "GitHub",
  categories: ["financial"],
  allEventTypes: GITHUB_EVENT_TYPES,
  setup:
    "On GitHub, open your profile's **Sponsors dashboard**, select **Webhooks** and click **Add webhook**. " +
    "Set **Payload URL** to the URL above and **Content type** to `application/json`, and click **Create webhook**.",
  handle: handleGitHubWebhook,
});
