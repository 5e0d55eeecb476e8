import { badRequest } from "../../lib/errors.js";
import { jsonFormField } from "../ciText.js";
import { defineIntegration } from "../types.js";

const GOOD = ["Passed", "Fixed"];
const BAD = ["Failed", "Broken", "Still Failing", "Errored", "Canceled"];
const PENDING = ["Pending"];

function emoji(status: string): string {
  if (GOOD.includes(status)) return ":thumbs_up:";
  if (BAD.includes(status)) return ":thumbs_down:";
  if (PENDING.includes(status)) return ":counterclockwise:";
  return `(No emoji specified for status '${status}'.)`;
}

/** The URL's ignore_pull_requests (JSON true or false; true when absent). */
function ignorePullRequests(value: string | undefined): boolean {
  if (value === undefined) return true;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw badRequest(`ignore_pull_requests is not valid JSON`);
  }
  if (typeof parsed !== "boolean") throw badRequest("ignore_pull_requests is not a boolean");
  return parsed;
}

/**
 * Zulip's "travis" integration: Travis CI posts its build notification as a form whose `payload`
 * field is the JSON; every build goes to the topic "builds". Pull request builds are left out
 * unless the URL says ignore_pull_requests=false (an option Zulip reads but does not list among
 * the integration's config_options, so neither does this).
 */
export default defineIntegration({
  name: "travis",
  displayName: "Travis CI",
  webhookName: "Travis",
  categories: ["continuous-integration"],
  body: "form",
  allEventTypes: ["push", "pull_request"],
  setup:
    "Add the URL to the `notifications` section of your repository's `.travis.yml` and push the change:\n\n" +
    "```\nnotifications:\n  webhooks:\n    - <URL>\n```",
  handle: ({ payload, query }) => {
    const message = jsonFormField(payload, "payload").dict();
    const author = message.get("author_name").str();
    const status = message.get("status_message").str();
    const compareUrl = message.get("compare_url").str();
    const buildUrl = message.get("build_url").str();
    const type = message.get("type").str();
    if (ignorePullRequests(query("ignore_pull_requests")) && type === "pull_request") return null;
    return {
      topic: "builds",
      content: `Author: ${author}\nBuild status: ${status} ${emoji(status)}\nDetails: [changes](${compareUrl}), [build log](${buildUrl})`,
      eventType: type,
    };
  },
});
