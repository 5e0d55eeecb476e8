import { BRANCHES_URL_OPTION, pullRequestEventMessage } from "../git.js";
import { defineIntegration } from "../types.js";
import { gogsWebhook, type PullRequestText } from "./gogs.js";

/**
 * Zulip's Gitea integration (zerver/webhooks/gitea/view.py): Gitea is a fork of Gogs, so all
 * but pull requests are Gogs' texts (services/gogs.ts), with the event in X-Gitea-Event. Zulip
 * declares no event types for it (none listed for filtering), but only_events/exclude_events
 * still match the event header's value.
 */

/** Gitea's pull request: the sender acts (or whoever merged it); branches from head/base; the assignee is named. */
const giteaPullRequestText: PullRequestText = (payload, includeTitle) => {
  const pr = payload.get("pull_request");
  const assigneeField = pr.get("assignee").required();
  const merged = pr.get("merged").bool();
  const userName = merged ? pr.at("merged_by.username").str() : payload.at("sender.username").str();
  const action = merged ? "merged" : payload.get("action").str();
  const edited = action === "edited";
  const assignee = assigneeField.value ? assigneeField.get("login").str() : undefined;
  return pullRequestEventMessage({
    userName,
    action,
    url: pr.get("html_url").str(),
    number: pr.get("number").int(),
    targetBranch: !edited && pr.has("head") ? pr.at("head.ref").str() : undefined,
    baseBranch: !edited && pr.has("base") ? pr.at("base.ref").str() : undefined,
    title: includeTitle ? pr.get("title").str() : undefined,
    assignee,
    assigneeUpdated: action === "assigned" ? assignee : undefined,
  });
};

export default defineIntegration({
  name: "gitea",
  displayName: "Gitea",
  categories: ["version-control"],
  urlOptions: [BRANCHES_URL_OPTION],
  setup: [
    "In your Gitea repository, open **Settings → Webhooks**, click **Add Webhook** and choose **Gitea**.",
    "Set **Target URL** to the URL above (add `branches=main,dev` to post pushes to those branches only),",
    "set **Content type** to `application/json`, select the events you want and click **Add Webhook**.",
  ].join(" "),
  handle: (hook) => gogsWebhook(hook, "X-Gitea-Event", giteaPullRequestText),
});
