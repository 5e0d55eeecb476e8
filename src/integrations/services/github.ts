import {
  BRANCHES_URL_OPTION,
  IGNORE_PRIVATE_REPOSITORIES_URL_OPTION,
  commitsCommentActionMessage,
  contentQuote,
  isBranchNameNotifiable,
  issueEventMessage,
  issueLabeledOrUnlabeledEventMessage,
  issueMilestonedOrDemilestonedEventMessage,
  pullRequestEventMessage,
  pushCommitsEventMessage,
  pushTagEventMessage,
  releaseEventMessage,
  setupWebhookMessage,
  shortSha,
  topicWithBranch,
  topicWithPrOrIssueInfo,
  urlBoolOption,
  type GitCommit,
} from "../git.js";
import type { Payload } from "../payload.js";
import { defineIntegration, type WebhookInput, type WebhookMessage } from "../types.js";

/**
 * Zulip's GitHub integration (zerver/webhooks/github/view.py): the X-GitHub-Event header,
 * refined by the payload's action, names one of Zulip's event types (the keys of HANDLERS,
 * which are also what only_events/exclude_events match); each has a topic and a message text.
 * Events GitHub sends that Zulip deliberately skips post nothing; any other is Zulip's
 * unsupported-event answer naming "<header>:<action>".
 */

/** What a handler reads: the payload, and whether the URL names a topic (then titles go in the message). */
interface Ctx {
  readonly payload: Payload;
  readonly includeTitle: boolean;
  /** The include_repository_name URL option: pushes name the repository. */
  readonly includeRepositoryName: boolean;
}

type Handler = (ctx: Ctx) => string;

const str = (p: Payload, path: string): string => p.at(path).str();
const int = (p: Payload, path: string): number => p.at(path).int();

/** A field Zulip reads with check_none_or(check_string): null is None, but it must be there. */
function nullableStr(p: Payload, path: string): string | null {
  const field = p.at(path);
  return field.value === null ? null : field.str();
}

const senderName = (p: Payload): string => str(p, "sender.login");
const senderUrl = (p: Payload): string => str(p, "sender.html_url");
const repositoryName = (p: Payload): string => str(p, "repository.name");
const repositoryFullName = (p: Payload): string => str(p, "repository.full_name");
const titleIf = (ctx: Ctx, path: string): string | null => (ctx.includeTitle ? str(ctx.payload, path) : null);
const branchNameFromRef = (ref: string): string => ref.replace(/^refs\/heads\//, "");
const tagNameFromRef = (ref: string): string => ref.replace(/^refs\/tags\//, "");
const isPullRequestCommentEvent = (p: Payload): boolean => p.get("issue").has("pull_request");

/** get_comment_action: "[commented](url) on" or "<action> a [comment](url) on". */
function commentAction(p: Payload): string {
  const action = str(p, "action");
  const prefix = action === "created" ? "[commented]" : `${action} a [comment]`;
  return `${prefix}(${str(p, "comment.html_url")}) on`;
}

// ---- pull requests ----

function openedOrUpdatedPullRequest({ payload, includeTitle }: Ctx): string {
  const pr = payload.get("pull_request");
  let action = str(payload, "action");
  if (action === "synchronize") action = "updated";
  const assignee = pr.get("assignee").truthy() ? str(pr, "assignee.login") : null;
  const changes = payload.get("changes");
  const description = changes.has("body") || action === "opened" ? nullableStr(pr, "body") : null;
  const branches = action === "opened" || action === "merged";
  return pullRequestEventMessage({
    userName: senderName(payload),
    action,
    url: str(pr, "html_url"),
    targetBranch: branches ? str(pr, "head.label") : null,
    baseBranch: branches ? str(pr, "base.label") : null,
    message: description,
    assignee,
    number: int(pr, "number"),
    title: includeTitle ? str(pr, "title") : null,
  });
}

function assignedOrUnassignedPullRequest(ctx: Ctx): string {
  const { payload } = ctx;
  const assignee = str(payload, "assignee.login");
  return pullRequestEventMessage({
    userName: senderName(payload),
    action: str(payload, "action"),
    url: str(payload, "pull_request.html_url"),
    number: int(payload, "pull_request.number"),
    title: titleIf(ctx, "pull_request.title"),
    assigneeUpdated: assignee,
  });
}

function closedPullRequest(ctx: Ctx): string {
  const { payload } = ctx;
  return pullRequestEventMessage({
    userName: senderName(payload),
    action: payload.at("pull_request.merged").bool() ? "merged" : "closed without merge",
    url: str(payload, "pull_request.html_url"),
    number: int(payload, "pull_request.number"),
    title: titleIf(ctx, "pull_request.title"),
  });
}

function lockedOrUnlockedPullRequest({ payload }: Ctx): string {
  const action = str(payload, "action");
  const sender = senderName(payload);
  const number = int(payload, "pull_request.number");
  const url = str(payload, "pull_request.html_url");
  const reasonField = payload.at("pull_request.active_lock_reason").required();
  const reason = reasonField.truthy() ? reasonField.str() : "None";
  if (action === "unlocked") return `${sender} has unlocked [PR #${number}](${url}).`;
  return `${sender} has locked [PR #${number}](${url}) as ${reason} and limited conversation to collaborators.`;
}

function pullRequestAutoMerge({ payload }: Ctx): string {
  const verb = str(payload, "action") === "auto_merge_disabled" ? "disabled" : "enabled";
  return `${senderName(payload)} has ${verb} auto merge for [PR #${int(payload, "pull_request.number")}](${str(payload, "pull_request.html_url")}).`;
}

function pullRequestReadyForReview({ payload }: Ctx): string {
  return `**${senderName(payload)}** has marked [PR #${int(payload, "pull_request.number")}](${str(payload, "pull_request.html_url")}) as ready for review.`;
}

function pullRequestReview(ctx: Ctx): string {
  const { payload } = ctx;
  const title = `for #${int(payload, "pull_request.number")} ${str(payload, "pull_request.title")}`;
  return pullRequestEventMessage({
    userName: senderName(payload),
    action: "submitted",
    url: str(payload, "review.html_url"),
    type: "PR review",
    title: ctx.includeTitle ? title : null,
    message: nullableStr(payload, "review.body"),
  });
}

function pullRequestReviewComment(ctx: Ctx): string {
  const { payload } = ctx;
  const action = str(payload, "action");
  const message = action === "created" ? str(payload, "comment.body") : null;
  const title = `on #${int(payload, "pull_request.number")} ${str(payload, "pull_request.title")}`;
  return pullRequestEventMessage({
    userName: senderName(payload),
    action,
    url: str(payload, "comment.html_url"),
    message,
    type: "PR review comment",
    title: ctx.includeTitle ? title : null,
  });
}

function pullRequestReviewRequested(ctx: Ctx): string {
  const { payload } = ctx;
  const sender = senderName(payload);
  const number = int(payload, "pull_request.number");
  const url = str(payload, "pull_request.html_url");
  const reviewers = payload.has("requested_reviewer")
    ? `[${str(payload, "requested_reviewer.login")}](${str(payload, "requested_reviewer.html_url")})`
    : `[${str(payload, "requested_team.name")}](${str(payload, "requested_team.html_url")})`;
  const pr = ctx.includeTitle ? `PR #${number} ${str(payload, "pull_request.title")}` : `PR #${number}`;
  return `**${sender}** requested ${reviewers} for a review on [${pr}](${url}).`;
}

// ---- issues ----

function issueBody(ctx: Ctx): string {
  const { payload } = ctx;
  const action = str(payload, "action");
  return issueEventMessage({
    userName: senderName(payload),
    action,
    url: str(payload, "issue.html_url"),
    number: int(payload, "issue.number"),
    message: action === "assigned" || action === "unassigned" ? null : nullableStr(payload, "issue.body"),
    title: titleIf(ctx, "issue.title"),
    assigneeUpdated: payload.has("assignee") ? str(payload, "assignee.login") : null,
  });
}

function issueComment(ctx: Ctx): string {
  const { payload } = ctx;
  return pullRequestEventMessage({
    userName: senderName(payload),
    action: commentAction(payload),
    url: str(payload, "issue.html_url"),
    number: int(payload, "issue.number"),
    message: str(payload, "comment.body"),
    title: titleIf(ctx, "issue.title"),
    type: isPullRequestCommentEvent(payload) ? "PR" : "issue",
  });
}

function issueLabeledOrUnlabeled(ctx: Ctx): string {
  const { payload } = ctx;
  return issueLabeledOrUnlabeledEventMessage({
    userName: senderName(payload),
    action: str(payload, "action") === "labeled" ? "added" : "removed",
    url: str(payload, "issue.html_url"),
    number: int(payload, "issue.number"),
    labelName: str(payload, "label.name"),
    userUrl: senderUrl(payload),
    title: titleIf(ctx, "issue.title"),
  });
}

function issueMilestonedOrDemilestoned(ctx: Ctx): string {
  const { payload } = ctx;
  return issueMilestonedOrDemilestonedEventMessage({
    userName: senderName(payload),
    action: str(payload, "action") === "milestoned" ? "added" : "removed",
    url: str(payload, "issue.html_url"),
    number: int(payload, "issue.number"),
    milestoneName: str(payload, "milestone.title"),
    milestoneUrl: str(payload, "milestone.html_url"),
    userUrl: senderUrl(payload),
    title: titleIf(ctx, "issue.title"),
  });
}

function issueTransferred({ payload }: Ctx): string {
  return (
    `${senderName(payload)} transferred [issue #${int(payload, "issue.number")} ${str(payload, "issue.title")}](${str(payload, "issue.html_url")}) ` +
    `to [${str(payload, "changes.new_repository.full_name")}/#${int(payload, "changes.new_issue.number")}](${str(payload, "changes.new_issue.html_url")}).`
  );
}

function issueOpenedViaTransfer({ payload }: Ctx): string {
  return (
    `[Issue #${int(payload, "issue.number")} ${str(payload, "issue.title")}](${str(payload, "issue.html_url")}) was transferred from ` +
    `[${str(payload, "changes.old_repository.full_name")}#${int(payload, "changes.old_issue.number")}](${str(payload, "changes.old_issue.html_url")}).`
  );
}

// ---- pushes, refs, commits ----

function pushCommits({ payload, includeRepositoryName }: Ctx): string {
  const commits: GitCommit[] = payload
    .get("commits")
    .list()
    .map((commit) => ({
      name: commit.at("author.username").truthy() ? str(commit, "author.username") : str(commit, "author.name"),
      sha: str(commit, "id"),
      url: str(commit, "url"),
      message: str(commit, "message"),
    }));
  return pushCommitsEventMessage({
    userName: senderName(payload),
    compareUrl: str(payload, "compare"),
    branchName: branchNameFromRef(str(payload, "ref")),
    commits,
    deleted: payload.get("deleted").bool(),
    forcePush: payload.get("forced").bool(),
    repositoryName: includeRepositoryName ? repositoryName(payload) : null,
    repositoryUrl: includeRepositoryName ? str(payload, "repository.html_url") : null,
  });
}

function pushTags({ payload }: Ctx): string {
  return pushTagEventMessage(senderName(payload), tagNameFromRef(str(payload, "ref")), null, payload.get("created").bool() ? "pushed" : "removed");
}

const createOrDelete =
  (action: string): Handler =>
  ({ payload }) =>
    `${senderName(payload)} ${action} ${str(payload, "ref_type")} ${str(payload, "ref")}.`.trimEnd();

function commitComment({ payload }: Ctx): string {
  const commentUrl = str(payload, "comment.html_url");
  const commitUrl = commentUrl.split("#")[0] ?? commentUrl;
  return commitsCommentActionMessage(
    senderName(payload),
    `[commented](${commentUrl})`,
    commitUrl,
    str(payload, "comment.commit_id"),
    str(payload, "comment.body"),
  );
}

function status({ payload }: Ctx): string {
  const state = str(payload, "state");
  const shown = payload.at("target_url").required().truthy() ? `[${state}](${str(payload, "target_url")})` : state;
  return `[${shortSha(str(payload, "sha"))}](${str(payload, "commit.html_url")}) changed its status to ${shown}.`;
}

function checkRun({ payload }: Ctx): string {
  const run = payload.get("check_run");
  const headSha = str(run, "head_sha");
  return (
    `Check [${str(run, "name")}](${str(run, "html_url")}) ${str(run, "status")} (${str(run, "conclusion")}). ` +
    `([${shortSha(headSha)}](${str(payload, "repository.html_url")}/commit/${headSha}))`
  );
}

// ---- repositories, organizations, teams ----

const member: Handler = ({ payload }) =>
  `${senderName(payload)} ${str(payload, "action")} [${str(payload, "member.login")}](${str(payload, "member.html_url")}) ` +
  `to [${repositoryName(payload)}](${str(payload, "repository.html_url")}).`;

function membership({ payload }: Ctx): string {
  const action = str(payload, "action");
  const teamName = str(payload, "team.name");
  return (
    `${senderName(payload)} ${action} [${str(payload, "member.login")}](${str(payload, "member.html_url")}) ` +
    `${action === "removed" ? "from" : "to"} the ${teamName} team.`
  );
}

const fork: Handler = ({ payload }) => `${senderName(payload)} forked [${str(payload, "forkee.name")}](${str(payload, "forkee.html_url")}).`;

const publicRepository: Handler = ({ payload }) =>
  `${senderName(payload)} made the repository [${repositoryFullName(payload)}](${str(payload, "repository.html_url")}) public.`;

const watch: Handler = ({ payload }) =>
  `${senderName(payload)} starred the repository [${repositoryFullName(payload)}](${str(payload, "repository.html_url")}).`;

const star: Handler = ({ payload }) =>
  `[${senderName(payload)}](${senderUrl(payload)}) ${str(payload, "action") === "created" ? "starred" : "unstarred"} ` +
  `the repository [${repositoryFullName(payload)}](${str(payload, "repository.html_url")}).`;

const repository: Handler = ({ payload }) =>
  `${senderName(payload)} ${str(payload, "action")} the repository [${repositoryFullName(payload)}](${str(payload, "repository.html_url")}).`;

const teamAdd: Handler = ({ payload }) =>
  `The repository [${repositoryFullName(payload)}](${str(payload, "repository.html_url")}) was added to team ${str(payload, "team.name")}.`;

function team({ payload }: Ctx): string {
  const changes = payload.get("changes");
  if (changes.has("description")) {
    return `**${senderName(payload)}** changed the team description to:\n\n~~~ quote\n${str(payload, "team.description")}\n~~~`;
  }
  if (changes.has("name")) return `Team \`${str(changes, "name.from")}\` was renamed to \`${str(payload, "team.name")}\`.`;
  if (changes.has("privacy")) return `Team visibility changed to \`${str(payload, "team.privacy")}\``;
  // Zulip logs these changes as unsupported but still posts what it can.
  return `Team has changes to \`${[...changes.keys()].sort().join("/")}\` data.`;
}

const wikiPages: Handler = ({ payload }) => {
  const pages = payload
    .get("pages")
    .list()
    .map((page) => `* ${str(page, "action")} [${str(page, "title")}](${str(page, "html_url")})\n`)
    .join("");
  return `${senderName(payload)}:\n${pages.trimEnd()}`;
};

function release({ payload }: Ctx): string {
  const tagName = str(payload, "release.tag_name");
  const name = payload.at("release.name").required().truthy() ? str(payload, "release.name") : tagName;
  return releaseEventMessage(senderName(payload), str(payload, "action"), tagName, name, str(payload, "release.html_url"));
}

function pageBuild({ payload }: Ctx): string {
  const build = payload.get("build");
  const status = str(build, "status");
  const actions: Record<string, string> = {
    null: "has yet to be built",
    building: "is being built",
    errored: "has failed: {}",
    built: "has finished building",
  };
  let action = Object.hasOwn(actions, status) ? actions[status]! : `is ${status}`;
  if (build.at("error.message").required().truthy()) action = pyFormatOne(action, contentQuote(str(build, "error.message")));
  return `GitHub Pages build, triggered by ${str(build, "pusher.login")}, ${action}.`;
}

/** Python's str.format with one positional argument, for the page-build texts (only "{}" occurs). */
function pyFormatOne(template: string, arg: string): string {
  return template.replace("{}", arg);
}

const deployment: Handler = ({ payload }) => `${senderName(payload)} created new deployment.`;
const deploymentStatus: Handler = ({ payload }) => `Deployment changed status to ${str(payload, "deployment_status.state")}.`;

const ping: Handler = ({ payload }) => setupWebhookMessage("GitHub", senderName(payload));

// ---- discussions ----

const discussion: Handler = ({ payload }) => {
  const d = payload.get("discussion");
  return (
    `${senderName(payload)} created [discussion #${int(d, "number")}](${str(d, "html_url")}) in ${str(d, "category.name")}:` +
    `\n\n~~~ quote\n### ${str(d, "title")}\n${str(d, "body")}\n~~~`
  );
};

function discussionComment(ctx: Ctx): string {
  const { payload } = ctx;
  return pullRequestEventMessage({
    userName: senderName(payload),
    action: commentAction(payload),
    url: str(payload, "discussion.html_url"),
    number: int(payload, "discussion.number"),
    message: str(payload, "comment.body"),
    title: titleIf(ctx, "discussion.title"),
    type: "discussion",
  });
}

// ---- GitHub Sponsors ----

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** get_effective_date: the date part of the timestamp as "%B %d, %Y" ("January 05, 2020"). */
function effectiveDate(p: Payload): string {
  const date = str(p, "effective_date").slice(0, 10);
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const month = m ? Number(m[2]) : 0;
  const day = m ? Number(m[3]) : 0;
  const year = m ? Number(m[1]) : 0;
  if (!m || month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) {
    throw new Error(`time data '${date}' does not match format '%Y-%m-%d'`);
  }
  return `${MONTHS[month - 1]} ${m[3]}, ${m[1]}`;
}

const tier = (p: Payload): string => str(p, "sponsorship.tier.name");
const priorTier = (p: Payload): string => str(p, "changes.tier.from.name");

const sponsorshipCancelled: Handler = ({ payload }) => `${senderName(payload)} cancelled their ${tier(payload)} subscription.`.trimEnd();
const sponsorshipCreated: Handler = ({ payload }) => `${senderName(payload)} subscribed for ${tier(payload)}.`.trimEnd();
const sponsorshipEdited: Handler = ({ payload }) =>
  `${senderName(payload)} changed who can see their sponsorship from ${str(payload, "changes.privacy_level.from")} to ${str(payload, "sponsorship.privacy_level")}.`.trimEnd();
const sponsorshipPendingCancellation: Handler = ({ payload }) =>
  `${senderName(payload)}'s ${tier(payload)} subscription will be cancelled on ${effectiveDate(payload)}.`.trimEnd();
const sponsorshipPendingTierChange: Handler = ({ payload }) =>
  `${senderName(payload)}'s subscription will change from ${priorTier(payload)} to ${tier(payload)} on ${effectiveDate(payload)}.`.trimEnd();
const sponsorshipTierChanged: Handler = ({ payload }) =>
  `${senderName(payload)} changed their subscription from ${priorTier(payload)} to ${tier(payload)}.`.trimEnd();

const SPONSORS_EVENT_TYPES = new Set(["cancelled", "created", "edited", "pending_cancellation", "pending_tier_change", "tier_changed"]);

/** Zulip's EVENT_FUNCTION_MAPPER, in its order: its keys are the event types. */
const HANDLERS: Readonly<Record<string, Handler>> = {
  commit_comment: commitComment,
  closed_pull_request: closedPullRequest,
  create: createOrDelete("created"),
  check_run: checkRun,
  delete: createOrDelete("deleted"),
  deployment,
  deployment_status: deploymentStatus,
  discussion,
  discussion_comment: discussionComment,
  fork,
  gollum: wikiPages,
  issue_comment: issueComment,
  issue_labeled_or_unlabeled: issueLabeledOrUnlabeled,
  issue_milestoned_or_demilestoned: issueMilestonedOrDemilestoned,
  issues_opened_via_transfer: issueOpenedViaTransfer,
  issues_transferred: issueTransferred,
  issues: issueBody,
  member,
  membership,
  opened_pull_request: openedOrUpdatedPullRequest,
  updated_pull_request: openedOrUpdatedPullRequest,
  assigned_or_unassigned_pull_request: assignedOrUnassignedPullRequest,
  page_build: pageBuild,
  ping,
  public: publicRepository,
  pull_request_ready_for_review: pullRequestReadyForReview,
  pull_request_review: pullRequestReview,
  pull_request_review_comment: pullRequestReviewComment,
  pull_request_review_requested: pullRequestReviewRequested,
  pull_request_auto_merge: pullRequestAutoMerge,
  locked_or_unlocked_pull_request: lockedOrUnlockedPullRequest,
  push_commits: pushCommits,
  push_tags: pushTags,
  release,
  repository,
  star,
  status,
  team,
  team_add: teamAdd,
  watch,
  cancelled: sponsorshipCancelled,
  created: sponsorshipCreated,
  edited: sponsorshipEdited,
  pending_cancellation: sponsorshipPendingCancellation,
  pending_tier_change: sponsorshipPendingTierChange,
  tier_changed: sponsorshipTierChanged,
};

const IGNORED_EVENTS = new Set([
  "check_suite",
  "label",
  "meta",
  "milestone",
  "organization",
  "project_card",
  "push__merge_queue",
  "repository_vulnerability_alert",
]);
const IGNORED_PULL_REQUEST_ACTIONS = new Set(["approved", "converted_to_draft", "labeled", "review_request_removed", "unlabeled"]);
/** Documented team actions Zulip does not post (team/edited it does; anything else is unsupported). */
const IGNORED_TEAM_ACTIONS = new Set(["added_to_repository", "created", "deleted", "removed_from_repository"]);

/** get_zulip_event_name: Zulip's event type for the header and payload; null posts nothing. */
function zulipEventName(hook: WebhookInput, header: string, payload: Payload, branches: string | undefined): string | null {
  if (header === "pull_request") {
    const action = str(payload, "action");
    if (action === "opened" || action === "reopened") return "opened_pull_request";
    if (action === "synchronize" || action === "edited") return "updated_pull_request";
    if (action === "assigned" || action === "unassigned") return "assigned_or_unassigned_pull_request";
    if (action === "closed") return "closed_pull_request";
    if (action === "review_requested") return "pull_request_review_requested";
    if (action === "ready_for_review") return "pull_request_ready_for_review";
    if (action === "locked" || action === "unlocked") return "locked_or_unlocked_pull_request";
    if (action === "auto_merge_enabled" || action === "auto_merge_disabled") return "pull_request_auto_merge";
    if (IGNORED_PULL_REQUEST_ACTIONS.has(action)) return null;
  } else if (header === "pull_request_review") {
    // GitHub sends a duplicate, empty "edited" event for a submitted review's body.
    const emptyEdit = str(payload, "action") === "edited" && payload.get("changes").keys().length === 0;
    return emptyEdit ? null : "pull_request_review";
  } else if (header === "push") {
    const ref = str(payload, "ref");
    if (ref.startsWith("refs/heads/gh-readonly-queue/")) return null;
    if (!ref.startsWith("refs/heads/")) return "push_tags";
    if (branches !== undefined && !isBranchNameNotifiable(branchNameFromRef(ref), branches)) return null;
    return "push_commits";
  } else if (header === "check_run") {
    return str(payload, "check_run.status") === "completed" ? "check_run" : null;
  } else if (header === "team") {
    const action = str(payload, "action");
    if (action === "edited") return "team";
    if (IGNORED_TEAM_ACTIONS.has(action)) return null;
    throw hook.unsupported(`unsupported team action ${action}`);
  } else if (header === "issues") {
    const action = str(payload, "action");
    if (action === "labeled" || action === "unlabeled") return "issue_labeled_or_unlabeled";
    if (action === "milestoned" || action === "demilestoned") return "issue_milestoned_or_demilestoned";
    if (action === "transferred") return "issues_transferred";
    if (action === "opened" && payload.get("changes").get("old_issue").truthy()) return "issues_opened_via_transfer";
    return "issues";
  } else if (Object.hasOwn(HANDLERS, header)) {
    return header;
  } else if (IGNORED_EVENTS.has(header)) {
    return null;
  }
  throw hook.unsupported(`${header}:${payload.get("action").optStr() ?? "???"}`);
}

/** get_topic_based_on_type. */
function topicFor(payload: Payload, event: string): string {
  if (event.includes("pull_request")) {
    return topicWithPrOrIssueInfo(repositoryName(payload), "PR", int(payload, "pull_request.number"), str(payload, "pull_request.title"));
  }
  if (event.startsWith("issue")) {
    const type = isPullRequestCommentEvent(payload) ? "PR" : "issue";
    return topicWithPrOrIssueInfo(repositoryName(payload), type, int(payload, "issue.number"), str(payload, "issue.title"));
  }
  if (event.startsWith("deployment")) return `${repositoryName(payload)} / Deployment on ${str(payload, "deployment.environment")}`;
  if (event === "membership") return `${str(payload, "organization.login")} organization`;
  if (event === "team") return `team ${str(payload, "team.name")}`;
  if (event === "push_commits") return topicWithBranch(repositoryName(payload), branchNameFromRef(str(payload, "ref")));
  if (event === "gollum") return topicWithBranch(repositoryName(payload), "wiki pages");
  if (event === "ping" && !payload.get("repository").truthy()) return str(payload, "organization.login");
  if (event === "check_run") return `${repositoryName(payload)} / checks`;
  if (event.startsWith("discussion")) {
    return `${repositoryName(payload)} discussion #${int(payload, "discussion.number")}: ${str(payload, "discussion.title")}`;
  }
  if (SPONSORS_EVENT_TYPES.has(event)) return "sponsors";
  return repositoryName(payload);
}

/** The whole of Zulip's api_github_webhook, shared by the GitHub and GitHub Sponsors URLs. */
export function handleGitHubWebhook(hook: WebhookInput): WebhookMessage | null {
  const ignorePrivate = urlBoolOption("ignore_private_repositories", hook.query("ignore_private_repositories"));
  const includeRepositoryName = urlBoolOption("include_repository_name", hook.query("include_repository_name"));
  const header = hook.eventHeader("X-GitHub-Event");
  const { payload } = hook;
  if (payload.has("repository") && payload.at("repository.private").bool() && ignorePrivate) return null;

  // An edited comment (other than a discussion's) whose text did not change posts nothing.
  if (
    header.includes("comment") &&
    !header.includes("discussion") &&
    (payload.get("action").optStr() ?? "") === "edited" &&
    str(payload, "changes.body.from") === str(payload, "comment.body")
  ) {
    return null;
  }

  const event = zulipEventName(hook, header, payload, hook.query("branches"));
  if (event === null) return null;
  const topic = topicFor(payload, event);
  const content = HANDLERS[event]!({ payload, includeTitle: hook.query("topic") !== undefined, includeRepositoryName });
  return { topic, content, eventType: event };
}

export const GITHUB_EVENT_TYPES: readonly string[] = Object.keys(HANDLERS);

export default defineIntegration({
  name: "github",
  displayName: "GitHub",
  categories: ["version-control", "continuous-integration", "project-management"],
  allEventTypes: GITHUB_EVENT_TYPES,
  urlOptions: [
    BRANCHES_URL_OPTION,
    IGNORE_PRIVATE_REPOSITORIES_URL_OPTION,
    { name: "include_repository_name", label: "Include repository name in the notifications", kind: "bool" },
  ],
  setup:
    "In your repository's **Settings**, open **Webhooks** and click **Add webhook**. Set **Payload URL** to the URL " +
    "above and **Content type** to `application/json`, choose the events to be notified about, and click **Add webhook**. " +
    "Add `branches=main,dev` to the URL to hear only about pushes to those branches, and `ignore_private_repositories=true` " +
    "to skip private repositories; `include_repository_name=true` names the repository in push messages.",
  handle: handleGitHubWebhook,
});
