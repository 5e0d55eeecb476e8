import { formField } from "../ciText.js";
import { defineIntegration } from "../types.js";

/** Zulip's "heroku" integration: Heroku's Deploy Hooks (HTTP Post Hook) form, one message per deploy, in a topic named for the app. */
export default defineIntegration({
  name: "heroku",
  displayName: "Heroku",
  categories: ["deployment"],
  body: "form",
  setup:
    "In your Heroku app's **Resources** tab, add the **Deploy Hooks** add-on with the **HTTP Post Hook** plan and click " +
    "**Provision**. Open the add-on, set **URL** to the URL, and click **Save and Send Test**.",
  handle: ({ payload }) => {
    const [head, app, user, url, gitLog] = ["head", "app", "user", "url", "git_log"].map((name) => formField(payload, name));
    return { topic: app as string, content: `${user} deployed version ${head} of [${app}](${url}):\n\n\`\`\` quote\n${gitLog}\n\`\`\`` };
  },
});
