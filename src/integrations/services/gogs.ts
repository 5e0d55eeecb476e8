import { badRequest } from "../../lib/errors.js";
import {
  BRANCHES_URL_OPTION,
  createBranchEventMessage,
  isBranchNameNotifiable,
  issueEventMessage,
  pullRequestEventMessage,
  pushCommitsEventMessage,
  releaseEventMessage,
  topicWithBranch,
  topicWithPrOrIssueInfo,
  topicWithRelease,
} from "../git.js";
import type { Payload } from "../payload.js";
import { defineIntegration, type WebhookInput, type WebhookOutcome } from "../types.js";

/**
 * Zulip's Gogs integration (zerver/webhooks/gogs/view.py), which its Gitea integration reuses
 * (Gitea is a fork of Gogs and sends the same payloads, with its own pull request shape and
 * header). The event is named in a header (X-Gogs-Event, X-Gitea-Event) and is also the event
 * type only_events/exclude_events match.
 */

/** Turns a pull_request payload into the message's text; `includeTitle` when the URL sets the topic. */
export type PullRequestText = (payload: Payload, includeTitle: boolean) => string;

export const GOGS_EVENT_TYPES = ["issue_comment", "issues", "create", "pull_request", "push", "release"] as const;

const issueUrl = (repoUrl: string, number: number): string => `${repoUrl}/issues/${number}`;
const titleIf = (p: Payload, includeTitle: boolean): string | undefined => (includeTitle ? p.str() : undefined);

/** A field that must be present, though it may be null. */
export function pushText(payload: Payload): string {
  const commits = payload
    .get("commits")
    .list()
    .map((commit) => {
      // The author's username, or else the first word of the author's name.
      const username = commit.at("author.username").str();
      const name = username || commit.at("author.name").str().trim().split(/\s+/)[0];
      if (!name) throw badRequest(`${commit.at("author.name").path} is empty`);
      return { name, sha: commit.get("id").str(), url: commit.get("url").str(), message: commit.get("message").str() };
    });
  return pushCommitsEventMessage({
    userName: payload.at("sender.username").str(),
    compareUrl: payload.get("compare_url").str(),
    branchName: payload.get("ref").str().replaceAll("refs/heads/", ""),
    commits,
  });
}

function newBranchText(payload: Payload): string {
  const branch = payload.get("ref").str();
  const url = `${payload.at("repository.html_url").str()}/src/${branch}`;
  return createBranchEventMessage(payload.at("sender.username").str(), url, branch);
}

/** Gogs' pull request: the author (or whoever merged it) acts; branches unless it was edited. */
export const gogsPullRequestText: PullRequestText = (payload, includeTitle) => {
  const pr = payload.get("pull_request");
  const merged = pr.get("merged").bool();
  const userName = merged ? pr.at("merged_by.username").str() : pr.at("user.username").str();
  const action = merged ? "merged" : payload.get("action").str();
  const edited = action === "edited";
  const assignee = payload.get("action").value && pr.get("assignee").required().value ? pr.at("assignee.login").str() : undefined;
  return pullRequestEventMessage({
    userName,
    action,
    url: pr.get("html_url").str(),
    number: pr.get("number").int(),
    targetBranch: edited ? undefined : pr.get("head_branch").str(),
    baseBranch: edited ? undefined : pr.get("base_branch").str(),
    title: titleIf(pr.get("title"), includeTitle),
    assigneeUpdated: assignee,
  });
};

function issuesText(payload: Payload, includeTitle: boolean): string {
  const issue = payload.get("issue");
  const number = issue.get("number").int();
  const assigneeField = issue.get("assignee").required();
  const assignee = assigneeField.value ? assigneeField.get("login").str() : undefined;
  const action = payload.get("action").str();
  return issueEventMessage({
    userName: payload.at("sender.login").str(),
    action,
    url: issueUrl(payload.at("repository.html_url").str(), number),
    number,
    message: issue.get("body").str(),
    assignee,
    title: titleIf(issue.get("title"), includeTitle),
    assigneeUpdated: action === "assigned" ? assignee : undefined,
  });
}

function issueCommentText(payload: Payload, includeTitle: boolean): string {
  const action = payload.get("action").str();
  const comment = payload.get("comment");
  const issue = payload.get("issue");
  const verb = action === "created" ? "[commented]" : `${action} a [comment]`;
  return issueEventMessage({
    userName: payload.at("sender.login").str(),
    action: `${verb}(${comment.get("html_url").str()}) on`,
    url: issueUrl(payload.at("repository.html_url").str(), issue.get("number").int()),
    number: issue.get("number").int(),
    message: comment.get("body").str(),
    title: titleIf(issue.get("title"), includeTitle),
  });
}

function releaseText(payload: Payload): string {
  const release = payload.get("release");
  return releaseEventMessage(
    release.at("author.username").str(),
    payload.get("action").str(),
    release.get("tag_name").str(),
    release.get("name").str(),
    payload.at("repository.html_url").str(),
  );
}

/**
 * Zulip's gogs_webhook_main, for Gogs and Gitea: the repository's name is read first, then the
 * event header; pushes to branches the URL's `branches` leaves out post nothing.
 */
export function gogsWebhook(hook: WebhookInput, header: string, pullRequestText: PullRequestText): WebhookOutcome {
  const { payload } = hook;
  const repo = payload.at("repository.name").str();
  const event = hook.eventHeader(header);
  const includeTitle = hook.query("topic") !== undefined;
  let topic: string;
  let content: string;
  switch (event) {
    case "push": {
      const branch = payload.get("ref").str().replaceAll("refs/heads/", "");
      if (!isBranchNameNotifiable(branch, hook.query("branches"))) return null;
      content = pushText(payload);
      topic = topicWithBranch(repo, branch);
      break;
    }
    case "create":
      content = newBranchText(payload);
      topic = topicWithBranch(repo, payload.get("ref").str());
      break;
    case "pull_request":
      content = pullRequestText(payload, includeTitle);
      topic = topicWithPrOrIssueInfo(repo, "PR", payload.at("pull_request.id").int(), payload.at("pull_request.title").str());
      break;
    case "issues":
      content = issuesText(payload, includeTitle);
      topic = topicWithPrOrIssueInfo(repo, "issue", payload.at("issue.number").int(), payload.at("issue.title").str());
      break;
    case "issue_comment":
      content = issueCommentText(payload, includeTitle);
      topic = topicWithPrOrIssueInfo(repo, "issue", payload.at("issue.number").int(), payload.at("issue.title").str());
      break;
    case "release":
      content = releaseText(payload);
      topic = topicWithRelease(repo, payload.at("release.tag_name").str(), payload.at("release.name").str());
      break;
    default:
      throw hook.unsupported(event);
  }
  return { topic, content, eventType: event };
}

export default defineIntegration({
  name: "gogs",
  displayName: "Gogs",
  categories: ["version-control"],
  allEventTypes: GOGS_EVENT_TYPES,
  urlOptions: [BRANCHES_URL_OPTION],
  setup: [
    "In your Gogs repository, open **Settings → Webhooks**, click **Add Webhook** and choose **Gogs**.",
    "Set **Payload URL** to the URL above (add `branches=main,dev` to post pushes to those branches only),",
    "set **Content type** to `application/json`, pick the events you want and click **Add Webhook**.",
  ].join(" "),
  handle: (hook) => gogsWebhook(hook, "X-Gogs-Event", gogsPullRequestText),
});
