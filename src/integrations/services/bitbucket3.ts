import {
  BRANCHES_URL_OPTION,
  commitsCommentActionMessage,
  createBranchEventMessage,
  endsWithPunctuation,
  isBranchNameNotifiable,
  pullRequestEventMessage,
  pushTagEventMessage,
  removeBranchEventMessage,
  topicWithBranch,
  topicWithPrOrIssueInfo,
} from "../git.js";
import type { Payload } from "../payload.js";
import { defineIntegration, type WebhookInput, type WebhookMessage } from "../types.js";

/**
 * Zulip's "bitbucket3" integration (zerver/webhooks/bitbucket3/view.py): Bitbucket Server's
 * (Data Center's) webhooks. The event is the payload's eventKey, or the X-Event-Key header when
 * the payload has none (the test ping). Users are shown as links to their Bitbucket profile.
 */

type Handler = (payload: Payload, hook: WebhookInput) => Array<{ topic: string; content: string }>;

/** get_user_name: "[name](profile link)". */
function userName(payload: Payload): string {
  const actor = payload.get("actor");
  return `[${actor.get("name").str()}](${selfLink(actor)})`;
}

const selfLink = (item: Payload): string => item.at("links.self.0.href").str();

/** The user's topic, when the URL names one: Zulip then puts the PR's title in the message. */
const includeTitle = (hook: WebhookInput): boolean => Boolean(hook.query("topic"));

const pingHandler: Handler = () => [{ topic: "Bitbucket Server Ping", content: "Congratulations! The Bitbucket Server webhook was configured successfully!" }];

const repoCommentHandler =
  (action: string): Handler =>
  (payload) => {
    const repository = payload.get("repository");
    const sha = payload.get("commit").str();
    // The repository's link ends in "browse"; its commits are beside it.
    const browse = selfLink(repository);
    const commitUrl = `${browse.slice(0, browse.length - "browse".length)}commits/${sha}`;
    let message = payload.at("comment.text").str();
    if (action === "deleted their comment") message = `~~${message}~~`;
    return [{ topic: repository.get("name").str(), content: commitsCommentActionMessage(userName(payload), action, commitUrl, sha, message) }];
  };

const repoForkedHandler: Handler = (payload) => {
  const fork = payload.get("repository");
  const topic = fork.at("origin.name").str();
  const displayName = payload.at("actor.displayName").str();
  return [
    {
      topic,
      content: `User ${displayName}(login: ${userName(payload)}) forked the repository into [${fork.get("name").str()}](${selfLink(fork)}).`,
    },
  ];
};

/** repo:modified: as of Zulip's writing, a rename is the only change Bitbucket Server reports. */
const repoModifiedHandler: Handler = (payload) => {
  const newName = payload.at("new.name").str();
  const oldName = payload.at("old.name").str();
  const body = `${userName(payload)} changed the name of the **${oldName}** repo from **${oldName}** to **${newName}**`;
  return [{ topic: newName, content: endsWithPunctuation(newName) ? body : `${body}.` }];
};

function branchChange(payload: Payload, change: Payload, hook: WebhookInput): { topic: string; content: string } {
  const kind = change.get("type").str();
  const repo = payload.at("repository.name").str();
  const user = userName(payload);
  const branch = change.at("ref.displayId").str();
  const head = change.get("toHash").str();
  let content: string;
  if (kind === "ADD") content = createBranchEventMessage(user, null, branch);
  else if (kind === "UPDATE") content = `${user} pushed to branch ${branch}. Head is now ${head}.`;
  else if (kind === "DELETE") content = removeBranchEventMessage(user, branch);
  else throw hook.unsupported(`${payload.get("eventKey").str()}.${kind}`);
  return { topic: topicWithBranch(repo, branch), content };
}

function tagChange(payload: Payload, change: Payload, hook: WebhookInput): { topic: string; content: string } {
  const kind = change.get("type").str();
  const repo = payload.at("repository.name").str();
  const tag = change.at("ref.displayId").str();
  let action: string;
  if (kind === "ADD") action = "pushed";
  else if (kind === "DELETE") action = "removed";
  else throw hook.unsupported(`${payload.get("eventKey").str()}.${kind}`);
  return { topic: repo, content: pushTagEventMessage(userName(payload), tag, null, action) };
}

/** repo:refs_changed: a message per changed branch (those the branches option names) or tag. */
const repoPushHandler: Handler = (payload, hook) => {
  const messages: Array<{ topic: string; content: string }> = [];
  for (const change of payload.get("changes").list()) {
    const targetType = change.at("ref.type").str();
    if (targetType === "BRANCH") {
      if (!isBranchNameNotifiable(change.at("ref.displayId").str(), hook.query("branches"))) continue;
      messages.push(branchChange(payload, change, hook));
    } else if (targetType === "TAG") {
      messages.push(tagChange(payload, change, hook));
    } else {
      throw hook.unsupported(`${payload.get("eventKey").str()}.${targetType}`);
    }
  }
  return messages;
};

/** get_assignees_string: the reviewers as profile links, "a", "a and b", "a, b and c"; none is undefined. */
function reviewersString(pr: Payload): string | undefined {
  const reviewers = pr
    .get("reviewers")
    .list()
    .map((reviewer) => `[${reviewer.at("user.name").str()}](${selfLink(reviewer.get("user"))})`);
  if (reviewers.length === 0) return undefined;
  if (reviewers.length === 1) return reviewers[0];
  return reviewers.slice(0, -1).join(", ") + " and " + reviewers.at(-1)!;
}

function prTopic(pr: Payload): string {
  return topicWithPrOrIssueInfo(pr.at("toRef.repository.name").str(), "PR", pr.get("id").int(), pr.get("title").str());
}

function prBody(payload: Payload, action: string, withTitle: boolean): string {
  const pr = payload.get("pullRequest");
  const user = userName(payload);
  const url = selfLink(pr);
  const number = pr.get("id").int();
  const title = withTitle ? pr.get("title").str() : undefined;
  switch (action) {
    case "opened":
    case "modified": {
      const description = pr.get("description").optStr();
      const opened = action === "opened";
      return pullRequestEventMessage({
        userName: user,
        action,
        url,
        number,
        targetBranch: opened ? pr.at("fromRef.displayId").str() : undefined,
        baseBranch: opened ? pr.at("toRef.displayId").str() : undefined,
        message: description,
        reviewer: reviewersString(pr),
        title,
      });
    }
    case "merged":
      return pullRequestEventMessage({
        userName: user,
        action,
        url,
        number,
        targetBranch: pr.at("fromRef.displayId").str(),
        baseBranch: pr.at("toRef.displayId").str(),
        title,
      });
    case "needs_work":
      return `${user} marked [PR #${number}${title === undefined ? "" : ` ${title}`}](${url}) as "needs work".`;
    case "reviewers_updated": {
      const reviewers = reviewersString(pr);
      if (reviewers === undefined) {
        if (title === undefined) return `${user} removed all reviewers from [PR #${number}](${url}).`;
        const message = `${user} removed all reviewers from [PR #${number} ${title}](${url})`;
        return endsWithPunctuation(title) ? message : `${message}.`;
      }
      return `${user} reassigned [PR #${number}${title === undefined ? "" : ` ${title}`}](${url}) to ${reviewers}.`;
    }
    default:
      return pullRequestEventMessage({ userName: user, action, url, number, title });
  }
}

const prHandler =
  (action: string): Handler =>
  (payload, hook) => {
    const topic = prTopic(payload.get("pullRequest"));
    return [{ topic, content: prBody(payload, action, includeTitle(hook)) }];
  };

const prCommentHandler =
  (action: string): Handler =>
  (payload, hook) => {
    const pr = payload.get("pullRequest");
    const topic = prTopic(pr);
    let message = payload.at("comment.text").str();
    if (action === "deleted their comment on") message = `~~${message}~~`;
    const content = pullRequestEventMessage({
      userName: userName(payload),
      action,
      url: selfLink(pr),
      number: pr.get("id").int(),
      message,
      title: includeTitle(hook) ? pr.get("title").str() : undefined,
    });
    return [{ topic, content }];
  };

/** Zulip's EVENT_HANDLER_MAP; its keys are the event types only_events/exclude_events filter. */
const HANDLERS: Record<string, Handler> = {
  "diagnostics:ping": pingHandler,
  "repo:comment:added": repoCommentHandler("commented"),
  "repo:comment:edited": repoCommentHandler("edited their comment"),
  "repo:comment:deleted": repoCommentHandler("deleted their comment"),
  "repo:forked": repoForkedHandler,
  "repo:modified": repoModifiedHandler,
  "repo:refs_changed": repoPushHandler,
  "pr:comment:added": prCommentHandler("commented on"),
  "pr:comment:edited": prCommentHandler("edited their comment on"),
  "pr:comment:deleted": prCommentHandler("deleted their comment on"),
  "pr:declined": prHandler("declined"),
  "pr:deleted": prHandler("deleted"),
  "pr:merged": prHandler("merged"),
  "pr:modified": prHandler("modified"),
  "pr:opened": prHandler("opened"),
  "pr:reviewer:approved": prHandler("approved"),
  "pr:reviewer:needs_work": prHandler("needs_work"),
  "pr:reviewer:updated": prHandler("reviewers_updated"),
  "pr:reviewer:unapproved": prHandler("unapproved"),
};

export default defineIntegration({
  name: "bitbucket3",
  displayName: "Bitbucket Server",
  webhookName: "Bitbucket3",
  categories: ["version-control"],
  allEventTypes: Object.keys(HANDLERS),
  urlOptions: [BRANCHES_URL_OPTION],
  unquoteUrlParameters: true,
  setup: [
    "In your Bitbucket Server repository, open **Settings** → **Webhooks** and click **Create webhook**.",
    "Give it a title such as `Zulip`, paste this URL as the **URL**, make sure it is **Active**, pick the events you want, and save.",
    "Add `&branches=main,dev` to the URL to hear only about pushes to those branches.",
  ].join("\n\n"),
  handle(hook): WebhookMessage[] {
    const { payload } = hook;
    const eventKey = payload.has("eventKey") ? payload.get("eventKey").str() : hook.eventHeader("X-Event-Key");
    if (!Object.hasOwn(HANDLERS, eventKey)) throw hook.unsupported(eventKey);
    return HANDLERS[eventKey]!(payload, hook).map((m) => ({ ...m, eventType: eventKey }));
  },
});
