import {
  BRANCHES_URL_OPTION,
  commitsCommentActionMessage,
  endsWithPunctuation,
  forcePushCommitsEventMessage,
  isBranchNameNotifiable,
  issueEventMessage,
  pullRequestEventMessage,
  pushCommitsEventMessage,
  pushTagEventMessage,
  removeBranchEventMessage,
  shortSha,
  topicWithBranch,
  topicWithPrOrIssueInfo,
  type GitCommit,
} from "../git.js";
import { pyStr } from "../python.js";
import type { Payload } from "../payload.js";
import { defineIntegration, type WebhookInput, type WebhookMessage } from "../types.js";

/**
 * Zulip's "bitbucket2" integration (zerver/webhooks/bitbucket2/view.py): Bitbucket Cloud's
 * webhooks. The event is read from the payload's shape (push, fork, commit comment, commit
 * status, issue) and, for pull requests and repo:updated, from the X-Event-Key header. A push
 * posts one message per change (branch or tag), each under its own topic.
 */

/** Zulip's PULL_REQUEST_SUPPORTED_ACTIONS: the pullrequest:<action> keys posted. */
const PULL_REQUEST_ACTIONS = [
  "approved",
  "unapproved",
  "created",
  "updated",
  "rejected",
  "fulfilled",
  "comment_created",
  "comment_updated",
  "comment_deleted",
] as const;

/** Zulip's ALL_EVENT_TYPES for Bitbucket2, in its order. */
const ALL_EVENT_TYPES = [
  "change_commit_status",
  "pull_request_comment_created",
  "pull_request_updated",
  "pull_request_unapproved",
  "push",
  "pull_request_approved",
  "pull_request_fulfilled",
  "issue_created",
  "issue_commented",
  "fork",
  "pull_request_comment_updated",
  "pull_request_created",
  "pull_request_rejected",
  "repo:updated",
  "issue_updated",
  "commit_comment",
  "pull_request_comment_deleted",
];

/** get_user_info: since GDPR, Bitbucket sends a display_name or a nickname, not a username. */
function userInfo(user: Payload): string {
  if (user.has("display_name")) return user.get("display_name").str();
  if (user.has("nickname")) return user.get("nickname").str();
  return "Unknown user";
}

const actorInfo = (payload: Payload): string => userInfo(payload.get("actor"));
const repositoryName = (repository: Payload): string => repository.get("name").str();
const htmlUrl = (item: Payload): string => item.at("links.html.href").str();

/** get_type: the event, from the payload's keys and, for pull requests and others, the X-Event-Key header. */
function eventType(hook: WebhookInput): string {
  const { payload } = hook;
  if (payload.has("push")) return "push";
  if (payload.has("fork")) return "fork";
  if (payload.has("comment") && payload.has("commit")) return "commit_comment";
  if (payload.has("commit_status")) return "change_commit_status";
  if (payload.has("issue")) {
    if (payload.has("changes")) return "issue_updated";
    if (payload.has("comment")) return "issue_commented";
    return "issue_created";
  }
  const eventKey = hook.eventHeader("X-Event-Key");
  if (payload.has("pullrequest")) {
    const action = /^pullrequest:([\s\S]*)$/.exec(eventKey)?.[1];
    if (action !== undefined && (PULL_REQUEST_ACTIONS as readonly string[]).includes(action)) return `pull_request_${action}`;
  } else if (eventKey === "repo:updated") {
    return eventKey;
  }
  throw hook.unsupported(eventKey);
}

// ---- pushes ----

/** The change's ref: its new state, or its old one when the ref was deleted. */
const changeRef = (change: Payload): Payload => (change.get("new").exists() ? change.get("new") : change.get("old"));

const isTagChange = (change: Payload): boolean => changeRef(change).get("type").str() === "tag";

/** get_branch_name_for_push_event: the last change's branch, none for a tag. */
function pushBranchName(payload: Payload): string | undefined {
  const changes = payload.at("push.changes").list();
  const change = changes[changes.length - 1]!;
  return isTagChange(change) ? undefined : changeRef(change).get("name").str();
}

/** get_commit_author_name: the author's Bitbucket user, else the first word of the raw author. */
function commitAuthorName(commit: Payload): string {
  const author = commit.get("author");
  if (author.has("user")) return userInfo(author.get("user"));
  return author.get("raw").str().trim().split(/\s+/)[0]!;
}

function pushTopic(payload: Payload, change: Payload): string {
  const repo = repositoryName(payload.get("repository"));
  if (isTagChange(change)) return repo;
  return topicWithBranch(repo, changeRef(change).get("name").str());
}

function pushBody(payload: Payload, change: Payload): string {
  if (isTagChange(change)) {
    const created = change.get("new").exists();
    const tag = created ? change.get("new") : change.get("old");
    return pushTagEventMessage(actorInfo(payload), tag.get("name").str(), htmlUrl(tag), created ? "pushed" : "removed");
  }
  if (!change.get("new").exists()) return removeBranchEventMessage(actorInfo(payload), change.at("old.name").str());
  if (change.get("forced").bool()) {
    return forcePushCommitsEventMessage(actorInfo(payload), htmlUrl(change), change.at("new.name").str(), change.at("new.target.hash").str());
  }
  const commits: GitCommit[] = change
    .get("commits")
    .list()
    .map((commit) => ({
      name: commitAuthorName(commit),
      sha: commit.get("hash").str(),
      url: htmlUrl(commit),
      message: commit.get("message").str(),
    }));
  return pushCommitsEventMessage({
    userName: actorInfo(payload),
    compareUrl: htmlUrl(change),
    branchName: change.at("new.name").str(),
    commits,
    isTruncated: change.get("truncated").bool(),
  });
}

function pushMessages(hook: WebhookInput): WebhookMessage[] {
  const { payload } = hook;
  const changes = payload.at("push.changes").list();
  // A push without changes posts nothing.
  if (changes.length === 0) return [];
  // As Zulip, the last change's branch decides for the whole push.
  const branch = pushBranchName(payload);
  if (branch !== undefined && !isBranchNameNotifiable(branch, hook.query("branches"))) return [];
  const topics = changes.map((change) => pushTopic(payload, change));
  return changes.map((change, i) => ({ topic: topics[i]!, content: pushBody(payload, change), eventType: "push" }));
}

// ---- everything else: one message ----

type Body = (payload: Payload, includeTitle: boolean) => string;

function forkBody(payload: Payload): string {
  const fork = payload.get("fork");
  return `${actorInfo(payload)} forked the repository into [${fork.get("full_name").str()}](${htmlUrl(fork)}).`;
}

function commitCommentBody(payload: Payload): string {
  const comment = payload.get("comment");
  return commitsCommentActionMessage(
    actorInfo(payload),
    `[commented](${htmlUrl(comment)})`,
    htmlUrl(comment.get("commit")),
    comment.at("commit.hash").str(),
    comment.at("content.raw").str(),
  );
}

function commitStatusBody(payload: Payload): string {
  const status = payload.get("commit_status");
  const commitId = status.at("links.commit.href").str().split("/").at(-1)!;
  const commitInfo = `[${shortSha(commitId)}](${htmlUrl(payload.get("repository"))}/commits/${commitId})`;
  return `[System ${status.get("key").str()}](${status.get("url").str()}) changed status of ${commitInfo} to ${status.get("state").str()}.`;
}

const issueActionBody =
  (action: string): Body =>
  (payload, includeTitle) => {
    const issue = payload.get("issue");
    let assignee: string | undefined;
    let message: string | undefined;
    if (action === "created") {
      if (issue.get("assignee").required().truthy()) assignee = userInfo(issue.get("assignee"));
      message = issue.at("content.raw").str();
    }
    return issueEventMessage({
      userName: actorInfo(payload),
      action,
      url: htmlUrl(issue),
      number: issue.get("id").int(),
      message,
      assignee,
      title: includeTitle ? issue.get("title").str() : undefined,
    });
  };

const issueCommentedBody: Body = (payload, includeTitle) => issueActionBody(`[commented](${htmlUrl(payload.get("comment"))}) on`)(payload, includeTitle);

/** Approved, unapproved, merged (fulfilled) and rejected: a line, with the branches when merged. */
const pullRequestActionBody =
  (action: string): Body =>
  (payload, includeTitle) => {
    const pr = payload.get("pullrequest");
    const merged = action === "merged";
    return pullRequestEventMessage({
      userName: actorInfo(payload),
      action,
      url: htmlUrl(pr),
      number: pr.get("id").int(),
      targetBranch: merged ? pr.at("source.branch.name").str() : undefined,
      baseBranch: merged ? pr.at("destination.branch.name").str() : undefined,
      title: includeTitle ? pr.get("title").str() : undefined,
    });
  };

/** Created or updated: the first reviewer as the assignee and the description quoted; the branches when created. */
const pullRequestCreatedOrUpdatedBody =
  (action: "created" | "updated"): Body =>
  (payload, includeTitle) => {
    const pr = payload.get("pullrequest");
    const reviewers = pr.get("reviewers").required();
    const assignee = reviewers.truthy() ? userInfo(reviewers.list()[0]!) : undefined;
    const created = action === "created";
    return pullRequestEventMessage({
      userName: actorInfo(payload),
      action,
      url: htmlUrl(pr),
      number: pr.get("id").int(),
      targetBranch: created ? pr.at("source.branch.name").str() : undefined,
      baseBranch: created ? pr.at("destination.branch.name").str() : undefined,
      message: pr.get("description").str(),
      assignee,
      title: includeTitle ? pr.get("title").str() : undefined,
    });
  };

function pullRequestCommentBody(payload: Payload, action: string, includeTitle: boolean): string {
  const pr = payload.get("pullrequest");
  return pullRequestEventMessage({
    userName: actorInfo(payload),
    action: `${action} on`,
    url: htmlUrl(pr),
    number: pr.get("id").int(),
    message: payload.at("comment.content.raw").str(),
    title: includeTitle ? pr.get("title").str() : undefined,
  });
}

const pullRequestCommentCreatedBody: Body = (payload, includeTitle) =>
  pullRequestCommentBody(payload, `[commented](${htmlUrl(payload.get("comment"))})`, includeTitle);

const pullRequestCommentChangedBody =
  (action: "updated" | "deleted"): Body =>
  (payload, includeTitle) =>
    pullRequestCommentBody(payload, `${action} a [comment](${htmlUrl(payload.get("comment"))})`, includeTitle);

/** repo:updated: a line per changed field Zulip reports, "from old to new" or, when it was empty, "to new". */
function repoUpdatedBody(payload: Payload): string {
  const repoName = payload.at("repository.name").str();
  const actor = actorInfo(payload);
  let body = "";
  for (const change of ["website", "name", "links", "language", "full_name", "description"]) {
    const field = payload.get("changes").get(change);
    const newValue = field.get("new").required();
    const oldValue = field.get("old").required();
    const label = change === "full_name" ? "full name" : change;
    const shown = pyStr(newValue.value);
    let message: string;
    if (newValue.truthy() && oldValue.truthy()) {
      message = `${actor} changed the ${label} of the **${repoName}** repo from **${pyStr(oldValue.value)}** to **${shown}**`;
    } else if (newValue.truthy()) {
      message = `${actor} changed the ${label} of the **${repoName}** repo to **${shown}**`;
    } else {
      continue;
    }
    body += (endsWithPunctuation(shown) ? message : `${message}.`) + "\n";
  }
  return body;
}

const BODIES: Record<string, Body> = {
  fork: forkBody,
  commit_comment: commitCommentBody,
  change_commit_status: commitStatusBody,
  issue_updated: issueActionBody("updated"),
  issue_created: issueActionBody("created"),
  issue_commented: issueCommentedBody,
  pull_request_created: pullRequestCreatedOrUpdatedBody("created"),
  pull_request_updated: pullRequestCreatedOrUpdatedBody("updated"),
  pull_request_approved: pullRequestActionBody("approved"),
  pull_request_unapproved: pullRequestActionBody("unapproved"),
  pull_request_fulfilled: pullRequestActionBody("merged"),
  pull_request_rejected: pullRequestActionBody("rejected"),
  pull_request_comment_created: pullRequestCommentCreatedBody,
  pull_request_comment_updated: pullRequestCommentChangedBody("updated"),
  pull_request_comment_deleted: pullRequestCommentChangedBody("deleted"),
  "repo:updated": repoUpdatedBody,
};

/** get_topic_based_on_type: "<repo> / PR #<id> <title>", "<repo> / issue #<id> <title>", or the repository's name. */
function topicFor(payload: Payload, type: string): string {
  const repo = repositoryName(payload.get("repository"));
  if (type.startsWith("pull_request")) {
    const pr = payload.get("pullrequest");
    return topicWithPrOrIssueInfo(repo, "PR", pr.get("id").int(), pr.get("title").str());
  }
  if (type.startsWith("issue")) {
    const issue = payload.get("issue");
    return topicWithPrOrIssueInfo(repo, "issue", issue.get("id").int(), issue.get("title").str());
  }
  return repo;
}

export default defineIntegration({
  name: "bitbucket2",
  displayName: "Bitbucket",
  webhookName: "Bitbucket2",
  categories: ["version-control"],
  allEventTypes: ALL_EVENT_TYPES,
  urlOptions: [BRANCHES_URL_OPTION],
  unquoteUrlParameters: true,
  setup: [
    "In your Bitbucket Cloud repository, open **Repository settings** → **Webhooks** and click **Add webhook**.",
    "Give it a title such as `Zulip`, paste this URL as the **URL**, pick the **Triggers** you want (or *All triggers*), and save.",
    "Add `&branches=main,dev` to the URL to hear only about pushes to those branches.",
  ].join("\n\n"),
  handle(hook) {
    const type = eventType(hook);
    if (type === "push") return pushMessages(hook);
    const { payload } = hook;
    const topic = topicFor(payload, type);
    const includeTitle = hook.query("topic") !== undefined;
    return { topic, content: BODIES[type]!(payload, includeTitle), eventType: type };
  },
});
