import { badRequest } from "../lib/errors.js";
import type { WebhookUrlOption } from "./types.js";

/**
 * The texts Zulip's git-service integrations share (zerver/lib/webhooks/git.py and the setup
 * message of zerver/lib/webhooks/common.py): topics, pushes and their commit lists, branches,
 * tags, pull requests, issues, commit comments, releases, and the `branches` URL filter. Every
 * function produces Zulip's text byte for byte, including where Python's formatting shows
 * through (a missing URL is written "None", as str.format writes it).
 *
 * Shared by the GitHub, GitLab, Bitbucket, Gitea/Gogs, … integrations: add exports, never
 * change the existing ones.
 */

/** Python's string.punctuation. */
const PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

/** Whether `text` ends with one of Python's string.punctuation characters. */
export function endsWithPunctuation(text: string): boolean {
  const last = text.at(-1);
  return last !== undefined && PUNCTUATION.includes(last);
}

/** What Python's str.format writes for a value that may be None. */
function py(value: string | number | null | undefined): string {
  return value === null || value === undefined ? "None" : String(value);
}

export const EMPTY_SHA = "0000000000000000000000000000000000000000";
export const COMMITS_LIMIT = 20;
export const PUSH_COMMITTERS_LIMIT_INFO = 3;

// ---- topics ----

/** TOPIC_WITH_BRANCH_TEMPLATE: "{repo} / {branch}". */
export function topicWithBranch(repo: string, branch: string): string {
  return `${repo} / ${branch}`;
}

/** TOPIC_WITH_PR_OR_ISSUE_INFO_TEMPLATE: "{repo} / {type} #{id} {title}". */
export function topicWithPrOrIssueInfo(repo: string, type: string, id: number | string, title: string): string {
  return `${repo} / ${type} #${id} ${title}`;
}

/** TOPIC_WITH_RELEASE_TEMPLATE: "{repo} / {tag} {title}". */
export function topicWithRelease(repo: string, tag: string, title: string): string {
  return `${repo} / ${tag} ${title}`;
}

// ---- setup ----

/** common.py's get_setup_webhook_message: "<integration> webhook has been successfully configured[ by <user>]." */
export function setupWebhookMessage(integration: string, userName?: string | null): string {
  let content = `${integration} webhook has been successfully configured`;
  if (userName) content += ` by ${userName}`;
  return `${content}.`;
}

// ---- URL options ----

/** Zulip's PresetUrlOption.BRANCHES: a comma-separated list of the branches to post about. */
export const BRANCHES_URL_OPTION: WebhookUrlOption = {
  name: "branches",
  label: "Branches to notify about (comma-separated; every branch when empty)",
  kind: "string",
};

/** Zulip's PresetUrlOption.IGNORE_PRIVATE_REPOSITORIES. */
export const IGNORE_PRIVATE_REPOSITORIES_URL_OPTION: WebhookUrlOption = {
  name: "ignore_private_repositories",
  label: "Exclude notifications from private repositories",
  kind: "bool",
};

/**
 * is_branch_name_notifiable: without a `branches` option every branch is posted; with one, only
 * the branches it lists (comma-separated, each stripped of surrounding whitespace).
 */
export function isBranchNameNotifiable(branch: string, branches: string | undefined | null): boolean {
  if (branches === undefined || branches === null) return true;
  return branches.split(",").some((name) => pyStrip(name) === branch);
}

/**
 * A boolean URL option such as ignore_private_repositories, read as Zulip's Json[bool]: absent is
 * false; "true"/"false" as JSON; anything else is a 400 naming the option.
 */
export function urlBoolOption(name: string, value: string | undefined): boolean {
  if (value === undefined) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw badRequest(`${name} is not valid JSON`);
  }
  if (typeof parsed !== "boolean") throw badRequest(`${name} is not a boolean`);
  return parsed;
}

/** Python's str.strip() with no argument: Unicode whitespace at both ends. */
function pyStrip(text: string): string {
  return text.replace(/^[\s\x1c-\x1f\x85]+|[\s\x1c-\x1f\x85]+$/gu, "");
}

// ---- short sha, commits, committers ----

/** get_short_sha: the first 11 characters. */
export function shortSha(sha: string): string {
  return sha.slice(0, 11);
}

/** One commit of a push, as git.py's commits_data dicts: author name, sha, message, URL. */
export interface GitCommit {
  readonly name: string;
  readonly sha: string;
  readonly message: string;
  /** Absent or null is written "None", as Zulip's commit.get("url"). */
  readonly url?: string | null;
}

/** get_commits_content: a bullet per commit (at most 20), then "[and N more commit(s)]". */
export function commitsContent(commits: readonly GitCommit[], isTruncated = false): string {
  let content = "";
  for (const commit of commits.slice(0, COMMITS_LIMIT)) {
    const firstLine = commit.message.split("\n")[0] ?? "";
    content += `* ${firstLine} ([${shortSha(commit.sha)}](${py(commit.url)}))\n`;
  }
  if (commits.length > COMMITS_LIMIT) content += `[and ${commits.length - COMMITS_LIMIT} more commit(s)]`;
  else if (isTruncated) content += "[and more commit(s)]";
  return content.trimEnd();
}

/** get_all_committers: [name, commit count], most commits first (ties by name); past three, the rest are "others". */
export function allCommitters(commits: readonly GitCommit[]): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const commit of commits) counts.set(commit.name, (counts.get(commit.name) ?? 0) + 1);
  let items = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  if (items.length > PUSH_COMMITTERS_LIMIT_INFO) {
    const others = items.slice(PUSH_COMMITTERS_LIMIT_INFO).reduce((sum, [, n]) => sum + n, 0);
    items = items.slice(0, PUSH_COMMITTERS_LIMIT_INFO);
    items.push(["others", others]);
  }
  return items;
}

// ---- pushes, branches, tags ----

export interface PushCommitsOptions {
  readonly userName: string;
  readonly compareUrl: string | null | undefined;
  readonly branchName: string;
  readonly commits: readonly GitCommit[];
  readonly isTruncated?: boolean;
  readonly deleted?: boolean;
  readonly forcePush?: boolean;
  readonly repositoryName?: string | null;
  readonly repositoryUrl?: string | null;
}

/** get_push_commits_event_message: a push of commits, a deleted branch, or a push without commits. */
export function pushCommitsEventMessage(o: PushCommitsOptions): string {
  const { userName, compareUrl, branchName, commits } = o;
  if (commits.length === 0 && o.deleted) return `${userName} [deleted](${py(compareUrl)}) the branch ${branchName}.`;
  const pushType = o.forcePush ? "force pushed" : "pushed";
  if (commits.length === 0) {
    if (compareUrl) return `${userName} [${pushType}](${compareUrl}) the branch ${branchName}.`;
    return `${userName} ${pushType} the branch ${branchName}.`;
  }
  const commitOrCommits = commits.length > 1 ? "commits" : "commit";
  const pushedText = compareUrl ? `[${pushType}](${compareUrl}) ${commits.length} ${commitOrCommits}` : `${pushType} ${commits.length} ${commitOrCommits}`;
  const base =
    o.repositoryName && o.repositoryUrl
      ? `${userName} ${pushedText} to branch ${branchName} of [${o.repositoryName}](${o.repositoryUrl}).`
      : `${userName} ${pushedText} to branch ${branchName}.`;
  const committers = allCommitters(commits);
  const list = commitsContent(commits, o.isTruncated ?? false);
  if (committers.length === 1 && userName === committers[0]![0]) return `${base}\n\n${list}\n`.trimEnd();
  let details = `${committers[0]![0]} (${committers[0]![1]})`;
  for (const [name, n] of committers.slice(1, -1)) details = `${details}, ${name} (${n})`;
  if (committers.length > 1) {
    const [name, n] = committers.at(-1)!;
    details = `${details} and ${name} (${n})`;
  }
  return `${base} Commits by ${details}.\n\n${list}\n`.trimEnd();
}

/** get_force_push_commits_event_message. */
export function forcePushCommitsEventMessage(userName: string, url: string, branchName: string, head: string): string {
  return `${userName} [force pushed](${url}) to branch ${branchName}. Head is now ${head}.`;
}

/** get_create_branch_event_message: with a URL the branch is a link. */
export function createBranchEventMessage(userName: string, url: string | null | undefined, branchName: string): string {
  if (url === null || url === undefined) return `${userName} created ${branchName} branch.`;
  return `${userName} created [${branchName}](${url}) branch.`;
}

/** get_remove_branch_event_message. */
export function removeBranchEventMessage(userName: string, branchName: string): string {
  return `${userName} deleted branch ${branchName}.`;
}

/** get_push_tag_event_message: "<user> pushed tag <tag>" (a link with a URL), "." unless the tag ends in punctuation. */
export function pushTagEventMessage(userName: string, tagName: string, tagUrl?: string | null, action = "pushed"): string {
  const tag = tagUrl ? `[${tagName}](${tagUrl})` : tagName;
  const message = `${userName} ${action} tag ${tag}`;
  return endsWithPunctuation(tagName) ? message : `${message}.`;
}

// ---- pull requests and issues ----

/** CONTENT_MESSAGE_TEMPLATE: the quoted body of a PR, issue or comment. */
export function contentQuote(message: string): string {
  return `\n~~~ quote\n${message}\n~~~`;
}

/** get_assignee_string: "a", or "a, b and c". Names as Zulip's assignees' "username". */
export function assigneeString(assignees: readonly string[]): string {
  if (assignees.length === 1) return assignees[0]!;
  return assignees.slice(0, -1).join(", ") + " and " + py(assignees.at(-1));
}

export interface PullRequestMessageOptions {
  readonly userName: string;
  /** "opened", "merged", …; "approval"/"unapproval" read "added/removed their approval for"; "assigned"/"unassigned" name assigneeUpdated. */
  readonly action: string;
  readonly url: string;
  readonly number?: number | string | null;
  /** The source branch ("from `target`"). */
  readonly targetBranch?: string | null;
  /** The branch merged into ("to `base`"). */
  readonly baseBranch?: string | null;
  /** The body, quoted after a ":". */
  readonly message?: string | null;
  readonly assignee?: string | null;
  /** The assignees' usernames. */
  readonly assignees?: readonly string[] | null;
  readonly assigneeUpdated?: string | null;
  readonly reviewer?: string | null;
  /** "PR" (default), "MR", "issue", … */
  readonly type?: string;
  readonly title?: string | null;
}

/** get_pull_request_event_message. */
export function pullRequestEventMessage(o: PullRequestMessageOptions): string {
  const actionText = o.action === "approval" ? "added their approval for" : o.action === "unapproval" ? "removed their approval for" : o.action;
  const assigneePart = o.action === "assigned" ? ` ${py(o.assigneeUpdated)} to` : o.action === "unassigned" ? ` ${py(o.assigneeUpdated)} from` : "";
  const id = o.number !== null && o.number !== undefined ? ` #${o.number}` : "";
  const title = o.title !== null && o.title !== undefined ? ` ${o.title}` : "";
  let main = `${o.userName} ${actionText}${assigneePart} [${o.type ?? "PR"}${id}${title}](${o.url})`;
  const hasBranches = Boolean(o.targetBranch && o.baseBranch);
  if (hasBranches) main = `${main} from \`${o.targetBranch}\` to \`${o.baseBranch}\``;
  const assignees = o.assignees ?? [];
  if (assignees.length > 0) main = `${main} (assigned to ${assigneeString(assignees)})`;
  else if (o.assignee) main = `${main} (assigned to ${o.assignee})`;
  else if (o.reviewer) main = `${main} (assigned reviewers: ${o.reviewer})`;
  const punctuation = o.message ? ":" : ".";
  if (assignees.length > 0 || o.assignee || hasBranches || o.title === null || o.title === undefined || !endsWithPunctuation(o.title)) {
    main = `${main}${punctuation}`;
  }
  if (o.message) main += "\n" + contentQuote(o.message);
  return main.trimEnd();
}

export interface IssueMessageOptions {
  readonly userName: string;
  readonly action: string;
  readonly url: string;
  readonly number?: number | string | null;
  readonly message?: string | null;
  readonly assignee?: string | null;
  readonly assignees?: readonly string[] | null;
  readonly assigneeUpdated?: string | null;
  readonly title?: string | null;
}

/** get_issue_event_message: a pull request message of type "issue". */
export function issueEventMessage(o: IssueMessageOptions): string {
  return pullRequestEventMessage({ ...o, type: "issue" });
}

export interface IssueLabelOptions {
  readonly userName: string;
  /** "added" (the label "to" the issue) or "removed" ("from"). */
  readonly action: string;
  readonly url: string;
  readonly number: number | string;
  readonly labelName: string;
  readonly userUrl: string;
  readonly title?: string | null;
}

/** get_issue_labeled_or_unlabeled_event_message. */
export function issueLabeledOrUnlabeledEventMessage(o: IssueLabelOptions): string {
  const preposition = o.action === "added" ? "to" : "from";
  const issue = o.title !== null && o.title !== undefined ? `Issue #${o.number} ${o.title}` : `Issue #${o.number}`;
  return `[${o.userName}](${o.userUrl}) ${o.action} the ${o.labelName} label ${preposition} [${issue}](${o.url}).`;
}

export interface IssueMilestoneOptions {
  readonly userName: string;
  /** "added" (the milestone "to" the issue) or "removed" ("from"). */
  readonly action: string;
  readonly url: string;
  readonly number: number | string;
  readonly milestoneName: string;
  readonly milestoneUrl: string;
  readonly userUrl: string;
  readonly title?: string | null;
}

/** get_issue_milestoned_or_demilestoned_event_message. */
export function issueMilestonedOrDemilestonedEventMessage(o: IssueMilestoneOptions): string {
  const preposition = o.action === "added" ? "to" : "from";
  const issue = o.title !== null && o.title !== undefined ? `issue #${o.number} ${o.title}` : `issue #${o.number}`;
  return `[${o.userName}](${o.userUrl}) ${o.action} milestone [${o.milestoneName}](${o.milestoneUrl}) ${preposition} [${issue}](${o.url}).`;
}

// ---- commit comments, releases ----

/** get_commits_comment_action_message: "<user> <action> on [<short sha>](<url>)", then ":" and the quoted comment, or ".". */
export function commitsCommentActionMessage(userName: string, action: string, commitUrl: string, sha: string, message?: string | null): string {
  let content = `${userName} ${action} on [${shortSha(sha)}](${commitUrl})`;
  content += message ? ":" : ".";
  if (message) content += contentQuote(message);
  return content;
}

/** get_release_event_message: "<user> <action> release [<name>](<url>) for tag <tag>." */
export function releaseEventMessage(userName: string, action: string, tagName: string, releaseName: string, url: string): string {
  return `${userName} ${action} release [${releaseName}](${url}) for tag ${tagName}.`;
}

/** RELEASE_MESSAGE_TEMPLATE_WITHOUT_USER_NAME: "Release [<name>](<url>) for tag <tag> was <action>." */
export function releaseEventMessageWithoutUserName(action: string, tagName: string, releaseName: string, url: string): string {
  return `Release [${releaseName}](${url}) for tag ${tagName} was ${action}.`;
}

/** RELEASE_MESSAGE_TEMPLATE_WITHOUT_USER_NAME_WITHOUT_URL: "Release <name> for tag <tag> was <action>." */
export function releaseEventMessageWithoutUserNameWithoutUrl(action: string, tagName: string, releaseName: string): string {
  return `Release ${releaseName} for tag ${tagName} was ${action}.`;
}
