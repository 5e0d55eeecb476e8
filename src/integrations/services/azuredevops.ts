import {
  BRANCHES_URL_OPTION,
  isBranchNameNotifiable,
  pullRequestEventMessage,
  pushCommitsEventMessage,
  topicWithBranch,
  topicWithPrOrIssueInfo,
  type GitCommit,
} from "../git.js";
import type { Payload } from "../payload.js";
import { defineIntegration } from "../types.js";

/**
 * Zulip's "azuredevops" integration (zerver/webhooks/azuredevops/view.py): Azure DevOps service
 * hooks for Git pushes and pull requests, the event named in the payload's eventType. As in
 * Zulip, the messages carry no event type (its view passes none to check_send_webhook_message),
 * so only_events/exclude_events do not filter them.
 */

const resource = (payload: Payload): Payload => payload.get("resource");
const repositoryName = (payload: Payload): string => resource(payload).at("repository.name").str();
const repositoryUrl = (payload: Payload): string => resource(payload).at("repository.remoteUrl").str();
const stripHeads = (ref: string): string => ref.replace(/refs\/heads\//g, "");
const pushBranchName = (payload: Payload): string => stripHeads(resource(payload).at("refUpdates.0.name").str());

const prId = (payload: Payload): number => resource(payload).get("pullRequestId").int();
const prTitle = (payload: Payload): string => resource(payload).get("title").str();
const prUrl = (payload: Payload): string => resource(payload).at("_links.web.href").str();
const prUserName = (payload: Payload): string => resource(payload).at("createdBy.displayName").str();

function pushBody(payload: Payload): string {
  const res = resource(payload);
  const repoUrl = repositoryUrl(payload);
  const update = res.at("refUpdates.0");
  const compareUrl = `${repoUrl}/branchCompare?baseVersion=GC${update.get("oldObjectId").str()}&targetVersion=GC${update.get("newObjectId").str()}&_a=files`;
  const commits: GitCommit[] = (res.has("commits") ? res.get("commits").list() : []).map((commit) => {
    const sha = commit.get("commitId").str();
    return { name: commit.at("author.name").str(), sha, url: `${repoUrl}/commit/${sha}`, message: commit.get("comment").str() };
  });
  return pushCommitsEventMessage({
    userName: res.at("pushedBy.displayName").str(),
    compareUrl,
    branchName: pushBranchName(payload),
    commits,
  });
}

function prCreatedBody(payload: Payload): string {
  const res = resource(payload);
  const description = res.get("description");
  return pullRequestEventMessage({
    userName: prUserName(payload),
    action: "created",
    url: prUrl(payload),
    number: prId(payload),
    targetBranch: stripHeads(res.get("sourceRefName").str()),
    baseBranch: stripHeads(res.get("targetRefName").str()),
    message: description.exists() && description.value !== "" ? description.str() : undefined,
    title: prTitle(payload),
  });
}

function prMergedBody(payload: Payload): string {
  const res = resource(payload);
  return pullRequestEventMessage({
    userName: prUserName(payload),
    action: "merged",
    url: prUrl(payload),
    number: prId(payload),
    targetBranch: stripHeads(res.get("sourceRefName").str()),
    baseBranch: stripHeads(res.get("targetRefName").str()),
    title: prTitle(payload),
  });
}

/** An update quotes Azure DevOps' own detailed message of what changed. */
function prUpdatedBody(payload: Payload): string {
  return pullRequestEventMessage({
    userName: prUserName(payload),
    action: "updated",
    url: prUrl(payload),
    number: prId(payload),
    message: payload.at("detailedMessage.markdown").str(),
    title: prTitle(payload),
  });
}

/** Zulip's EVENT_FUNCTION_MAPPER. */
const BODIES: Record<string, (payload: Payload) => string> = {
  "git.push": pushBody,
  "git.pullrequest.created": prCreatedBody,
  "git.pullrequest.merged": prMergedBody,
  "git.pullrequest.updated": prUpdatedBody,
};

export default defineIntegration({
  name: "azuredevops",
  displayName: "AzureDevOps",
  categories: ["version-control"],
  allEventTypes: Object.keys(BODIES),
  urlOptions: [BRANCHES_URL_OPTION],
  setup: [
    "In your Azure DevOps project, open **Project settings** → **Service hooks**, click **Create subscription**, choose **Web Hooks** and click **Next**.",
    "Pick the event (code pushed, pull request created, merge attempted, updated) and click **Next**.",
    "Paste this URL as the **URL**, set **Resource details to send** and **Detailed messages to send** to **All**, and click **Finish**. Add `&branches=main,dev` to the URL to hear only about pushes to those branches.",
  ].join("\n\n"),
  handle(hook) {
    const { payload } = hook;
    const event = payload.get("eventType").str();
    if (event === "git.push" && !isBranchNameNotifiable(pushBranchName(payload), hook.query("branches"))) return null;
    if (event === "git.pullrequest.merged") {
      // Azure DevOps also sends this when a merge is only attempted (a conflict, or a clean
      // update): only a completed, successful merge is posted.
      const res = resource(payload);
      if (res.get("status").str() !== "completed" || res.get("mergeStatus").str() !== "succeeded") return null;
    }
    if (!Object.hasOwn(BODIES, event)) throw hook.unsupported(event);
    const topic =
      event === "git.push"
        ? topicWithBranch(repositoryName(payload), pushBranchName(payload))
        : topicWithPrOrIssueInfo(repositoryName(payload), "PR", prId(payload), prTitle(payload));
    return { topic, content: BODIES[event]!(payload) };
  },
});
