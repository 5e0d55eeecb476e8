import { badRequest } from "../../lib/errors.js";
import {
  BRANCHES_URL_OPTION,
  EMPTY_SHA,
  commitsCommentActionMessage,
  contentQuote,
  isBranchNameNotifiable,
  issueEventMessage,
  pullRequestEventMessage,
  pushCommitsEventMessage,
  pushTagEventMessage,
  releaseEventMessageWithoutUserName,
  releaseEventMessageWithoutUserNameWithoutUrl,
  removeBranchEventMessage,
  topicWithPrOrIssueInfo,
} from "../git.js";
import type { Payload } from "../payload.js";
import { defineIntegration, type WebhookInput } from "../types.js";

/**
 * Zulip's GitLab integration (zerver/webhooks/gitlab/view.py). GitLab names the hook in the
 * X-Gitlab-Event header ("Push Hook", "Merge Request Hook", …; "System Hook" for instance-wide
 * hooks, whose kind is then read from the payload); issues, merge requests and wiki pages add the
 * action, notes the kind of thing commented on. The result, e.g. "Merge Request Hook merge", is
 * both the row of the table below and the event type only_events/exclude_events match.
 *
 * With a `topic` in the URL, each message starts with a link to the project and names the issue
 * or merge request by title, as the topic no longer does.
 */

type Body = (payload: Payload, includeTitle: boolean, hook: WebhookInput) => string;

// ---- reading the payload ----

/** A field that must be present and may be null (Zulip's check_none_or(check_string)). */
function nullableStr(p: Payload): string | null {
  if (p.value === null) return null;
  return p.str();
}

const repoName = (payload: Payload): string => (payload.has("project") ? payload.at("project.name").str() : payload.at("repository.name").str());
const projectHomepage = (payload: Payload): string => (payload.has("project") ? payload.at("project.web_url").str() : payload.at("repository.homepage").str());
const userName = (payload: Payload): string => payload.get("user_name").str();
const issueUserName = (payload: Payload): string => payload.at("user.name").str();
const branchName = (payload: Payload): string => payload.get("ref").str().replaceAll("refs/heads/", "");
const tagName = (payload: Payload): string => payload.get("ref").str().replaceAll("refs/tags/", "");
const objectUrl = (payload: Payload): string => payload.at("object_attributes.url").str();
const titleIf = (p: Payload, includeTitle: boolean): string | undefined => (includeTitle ? p.str() : undefined);

/** Python's str.rstrip() with no argument. */
const rstrip = (text: string): string => text.replace(/[\t\n\v\f\r \x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/u, "");

/** The assignees' names: `assignees` when non-empty, else the single `assignee`, else none. */
function assigneeNames(payload: Payload): string[] {
  const many = payload.get("assignees");
  const list = many.truthy() ? many.list() : payload.get("assignee").truthy() ? [payload.get("assignee")] : [];
  return list.map((assignee) => assignee.get("name").str());
}

// ---- pushes and tags ----

const pushBody: Body = (payload) => {
  const after = payload.get("after");
  if (after.truthy() && after.str() === EMPTY_SHA) return removeBranchEventMessage(userName(payload), branchName(payload));
  const compareUrl = `${projectHomepage(payload)}/-/compare/${payload.get("before").str()}...${payload.get("after").str()}`;
  const commits = payload
    .get("commits")
    .list()
    .map((commit) => ({
      name: commit.at("author.name").str(),
      sha: commit.get("id").str(),
      message: commit.get("message").str(),
      url: commit.get("url").str(),
    }));
  return pushCommitsEventMessage({ userName: userName(payload), compareUrl, branchName: branchName(payload), commits });
};

const tagPushBody: Body = (payload) =>
  pushTagEventMessage(userName(payload), tagName(payload), undefined, payload.get("checkout_sha").truthy() ? "pushed" : "removed");

const testBody: Body = (payload) => `Webhook for **${repoName(payload)}** has been configured successfully! :tada:`;

// ---- issues ----

const issueCreatedBody: Body = (payload, includeTitle) => {
  const attributes = payload.get("object_attributes");
  const description = attributes.get("description");
  // Hidden comments (<!-- … -->) are left out.
  const message = description.truthy() ? rstrip(description.str().replace(/<!--[\s\S]*?-->/g, "")) : undefined;
  return issueEventMessage({
    userName: issueUserName(payload),
    action: "created",
    url: objectUrl(payload),
    number: attributes.get("iid").int(),
    message,
    assignees: assigneeNames(payload),
    title: titleIf(attributes.get("title"), includeTitle),
  });
};

const issueBody =
  (action: string): Body =>
  (payload, includeTitle) =>
    issueEventMessage({
      userName: issueUserName(payload),
      action,
      url: objectUrl(payload),
      number: payload.at("object_attributes.iid").int(),
      title: titleIf(payload.at("object_attributes.title"), includeTitle),
    });

// ---- merge requests ----

const mergeRequestBody =
  (action: string): Body =>
  (payload, includeTitle) => {
    const mr = payload.get("object_attributes");
    const merged = action === "merged";
    return pullRequestEventMessage({
      userName: issueUserName(payload),
      action,
      url: mr.get("url").str(),
      number: mr.get("iid").int(),
      targetBranch: merged ? mr.get("source_branch").str() : undefined,
      baseBranch: merged ? mr.get("target_branch").str() : undefined,
      type: "MR",
      title: titleIf(mr.get("title"), includeTitle),
    });
  };

const mergeRequestOpenOrUpdatedBody =
  (action: string): Body =>
  (payload, includeTitle) => {
    const mr = payload.get("object_attributes");
    const created = action === "created";
    return pullRequestEventMessage({
      userName: issueUserName(payload),
      action,
      url: mr.get("url").str(),
      number: mr.get("iid").int(),
      targetBranch: created ? mr.get("source_branch").str() : undefined,
      baseBranch: created ? mr.get("target_branch").str() : undefined,
      message: nullableStr(mr.get("description")),
      assignees: assigneeNames(payload),
      type: "MR",
      title: titleIf(mr.get("title"), includeTitle),
    });
  };

/** An update with `oldrev` is a push to the merge request's branch. */
const mergeRequestUpdatedBody: Body = (payload, includeTitle, hook) =>
  payload.at("object_attributes.oldrev").truthy()
    ? mergeRequestBody("added commit(s) to")(payload, includeTitle, hook)
    : mergeRequestOpenOrUpdatedBody("updated")(payload, includeTitle, hook);

// ---- notes (comments) ----

const commentAction = (payload: Payload, suffix: string): string => `[commented](${payload.at("object_attributes.url").str()})${suffix}`;

const commitNoteBody: Body = (payload) =>
  commitsCommentActionMessage(
    issueUserName(payload),
    commentAction(payload, ""),
    payload.at("commit.url").str(),
    payload.at("commit.id").str(),
    payload.at("object_attributes.note").str(),
  );

/** A comment on a merge request, issue or snippet (`on`, with the type's name). */
function noteOn(payload: Payload, includeTitle: boolean, type: string, url: string, number: number, title: Payload): string {
  return pullRequestEventMessage({
    userName: issueUserName(payload),
    action: commentAction(payload, " on"),
    url,
    number,
    message: payload.at("object_attributes.note").str(),
    type,
    title: titleIf(title, includeTitle),
  });
}

const mergeRequestNoteBody: Body = (payload, includeTitle) => {
  const mr = payload.get("merge_request");
  return noteOn(payload, includeTitle, "MR", mr.get("url").str(), mr.get("iid").int(), mr.get("title"));
};

const issueNoteBody: Body = (payload, includeTitle) => {
  const issue = payload.get("issue");
  return noteOn(payload, includeTitle, "issue", issue.get("url").str(), issue.get("iid").int(), issue.get("title"));
};

const snippetNoteBody: Body = (payload, includeTitle) => {
  const snippet = payload.get("snippet");
  // The snippet's own URL is sent from GitLab 16.1 on.
  const url = snippet.has("url") ? snippet.get("url").str() : `${payload.at("project.web_url").str()}/-/snippets/${snippet.get("id").int()}`;
  return noteOn(payload, includeTitle, "snippet", url, snippet.get("id").int(), snippet.get("title"));
};

/** A design's path is "designs/issue-<n>/<file name>"; the issue is known only from it. */
const designNoteBody: Body = (payload) => {
  const comment = payload.get("object_attributes");
  const repositoryUrl = payload.at("repository.homepage").str();
  const noteId = comment.get("id").int();
  const parts = comment.at("position.new_path").str().split("/");
  if (parts.length !== 3) throw badRequest(`${comment.at("position.new_path").path} is not a design's path`);
  const [, issueSubpath, designName] = parts as [string, string, string];
  const issueNumber = issueSubpath.split("-").at(-1);
  const designUrl = `${repositoryUrl}/-/issues/${issueNumber}/designs/${designName}`;
  return `${issueUserName(payload)} [commented](${designUrl}#note_${noteId}) on design [${designName}](${designUrl}):\n${contentQuote(comment.get("note").str())}`;
};

// ---- wiki, CI, releases, feature flags, tokens, deployments ----

const wikiPageBody =
  (action: string): Body =>
  (payload) =>
    `${issueUserName(payload)} ${action} [wiki page "${payload.at("object_attributes.title").str()}"](${objectUrl(payload)}).`;

const buildBody: Body = (payload) => {
  const status = payload.get("build_status").str();
  const action = status === "created" ? "was created" : status === "running" ? "started" : `changed status to ${status}`;
  return `Build ${payload.get("build_name").str()} from ${payload.get("build_stage").str()} stage ${action}.`;
};

const pipelineBody: Body = (payload) => {
  const attributes = payload.get("object_attributes");
  const status = attributes.get("status").str();
  const action = status === "pending" ? "was created" : status === "running" ? "started" : `changed status to ${status}`;
  const homepage = projectHomepage(payload);
  const id = attributes.get("id").int();
  let builds = "";
  for (const build of payload.get("builds").list()) {
    const buildUrl = `${homepage}/-/jobs/${build.get("id").int()}`;
    const artifacts = build.get("artifacts_file");
    const filename = artifacts.value === undefined ? undefined : artifacts.dict().get("filename");
    const artifact =
      filename !== undefined && filename.truthy()
        ? `  * built artifact: *${filename.str()}* [[Browse](${buildUrl}/artifacts/browse)|[Download](${buildUrl}/artifacts/download)]\n`
        : "";
    builds += `* [${build.get("name").str()}](${buildUrl}) - ${build.get("status").str()}\n${artifact}`;
  }
  return `[Pipeline (${id})](${homepage}/-/pipelines/${id}) ${action} with build(s):\n${builds.slice(0, -1)}.`;
};

const releaseBody: Body = (payload) => {
  const action = payload.get("action").str();
  const name = payload.get("name").str();
  const tag = payload.get("tag").str();
  if (action === "delete") return releaseEventMessageWithoutUserNameWithoutUrl(`${action}d`, tag, name);
  let body = releaseEventMessageWithoutUserName(`${action}d`, tag, name, payload.get("url").str());
  if (payload.has("description")) body += contentQuote(payload.get("description").str());
  return body;
};

const featureFlagBody: Body = (payload) => {
  const flag = payload.get("object_attributes");
  const action = flag.get("active").bool() ? "activated" : "deactivated";
  return `${payload.at("user.username").str()} ${action} the feature flag [${flag.get("name").str()}](${payload.at("project.web_url").str()}/-/feature_flags).`;
};

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "2025-01-05" (strptime's %Y-%m-%d) as strftime's "%b %d, %Y": "Jan 05, 2025". */
function expiryDate(p: Payload): string {
  const match = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(p.str());
  const [year, month, day] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (!match || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) throw badRequest(`${p.path} is not a date`);
  return `${MONTHS[month - 1]} ${String(day).padStart(2, "0")}, ${match[1]}`;
}

/** The access tokens page of the group (on gitlab.com, as Zulip writes it) or of the project. */
function accessTokensUrl(payload: Payload): string {
  if (payload.has("group")) return `https://gitlab.com/groups/${payload.at("group.group_path").str()}/-/settings/access_tokens`;
  return `${payload.at("project.web_url").str()}/-/settings/access_tokens`;
}

const accessTokenBody: Body = (payload) => {
  const token = payload.get("object_attributes");
  const date = expiryDate(token.get("expires_at"));
  return `The access token [${token.get("name").str()}](${accessTokensUrl(payload)}) will expire on ${date}.`;
};

const deploymentBody: Body = (payload, _includeTitle, hook) => {
  const user = `[${payload.at("user.name").str()}](${payload.get("user_url").str()})`;
  const status = payload.get("status").str();
  const deployableUrl = payload.has("deployable_url") ? payload.get("deployable_url").str() : "";
  const deployment = deployableUrl ? `[deployment](${deployableUrl})` : "deployment";
  const commitTitle = payload.get("commit_title").str();
  const commitUrl = payload.get("commit_url").str();
  const sha = (commitUrl.split("/").at(-1) ?? "").slice(0, 7);
  switch (status) {
    case "running":
      return `${user} started a new ${deployment}:\n> [${sha}](${commitUrl}) ${commitTitle}`;
    case "success":
      return `The ${deployment} was successful.`;
    case "failed":
      return `The ${deployment} failed.`;
    case "canceled":
      return `The ${deployment} was canceled.`;
    default:
      // Zulip has no text for other statuses (its lookup fails); here they are unsupported.
      throw hook.unsupported(`Deployment Hook ${status}`);
  }
};

// ---- the table ----

const EVENTS: Readonly<Record<string, Body>> = {
  "Push Hook": pushBody,
  "Tag Push Hook": tagPushBody,
  "Test Hook": testBody,
  "Issue Hook open": issueCreatedBody,
  "Issue Hook close": issueBody("closed"),
  "Issue Hook reopen": issueBody("reopened"),
  "Issue Hook update": issueBody("updated"),
  "Confidential Issue Hook open": issueCreatedBody,
  "Confidential Issue Hook close": issueBody("closed"),
  "Confidential Issue Hook reopen": issueBody("reopened"),
  "Confidential Issue Hook update": issueBody("updated"),
  "Note Hook Commit": commitNoteBody,
  "Note Hook MergeRequest": mergeRequestNoteBody,
  "Note Hook Issue": issueNoteBody,
  "Confidential Note Hook Issue": issueNoteBody,
  "Note Hook DesignManagement::Design": designNoteBody,
  "Confidential Note Hook DesignManagement::Design": designNoteBody,
  "Note Hook Snippet": snippetNoteBody,
  "Merge Request Hook approved": mergeRequestBody("approved"),
  "Merge Request Hook unapproved": mergeRequestBody("unapproved"),
  // approval/unapproval: sent only when more than one approval is required.
  "Merge Request Hook approval": mergeRequestBody("approval"),
  "Merge Request Hook unapproval": mergeRequestBody("unapproval"),
  "Merge Request Hook open": mergeRequestOpenOrUpdatedBody("created"),
  "Merge Request Hook update": mergeRequestUpdatedBody,
  "Merge Request Hook merge": mergeRequestBody("merged"),
  "Merge Request Hook close": mergeRequestBody("closed"),
  "Merge Request Hook reopen": mergeRequestBody("reopened"),
  "Wiki Page Hook create": wikiPageBody("created"),
  "Wiki Page Hook update": wikiPageBody("updated"),
  "Job Hook": buildBody,
  "Build Hook": buildBody,
  "Pipeline Hook": pipelineBody,
  "Release Hook": releaseBody,
  "Feature Flag Hook": featureFlagBody,
  "Resource Access Token Hook": accessTokenBody,
  "Deployment Hook": deploymentBody,
};

function topicOf(event: string, payload: Payload, useMergeRequestTitle: boolean): string {
  if (event === "Push Hook") return `${repoName(payload)} / ${branchName(payload)}`;
  if (event === "Job Hook" || event === "Build Hook") return `${payload.at("repository.name").str()} / ${branchName(payload)}`;
  if (event === "Pipeline Hook") return `${repoName(payload)} / ${payload.at("object_attributes.ref").str().replaceAll("refs/heads/", "")}`;
  if (event.startsWith("Merge Request Hook")) {
    const mr = payload.get("object_attributes");
    return topicWithPrOrIssueInfo(repoName(payload), "MR", mr.get("iid").int(), useMergeRequestTitle ? mr.get("title").str() : "");
  }
  if (event.startsWith("Issue Hook") || event.startsWith("Confidential Issue Hook")) {
    const issue = payload.get("object_attributes");
    return topicWithPrOrIssueInfo(repoName(payload), "issue", issue.get("iid").int(), issue.get("title").str());
  }
  if (event === "Note Hook Issue" || event === "Confidential Note Hook Issue") {
    const issue = payload.get("issue");
    return topicWithPrOrIssueInfo(repoName(payload), "issue", issue.get("iid").int(), issue.get("title").str());
  }
  if (event === "Note Hook DesignManagement::Design" || event === "Confidential Note Hook DesignManagement::Design") {
    return `${repoName(payload)} / design ${payload.at("object_attributes.position.new_path").str().split("/").at(-1)}`;
  }
  if (event === "Note Hook MergeRequest") {
    const mr = payload.get("merge_request");
    return topicWithPrOrIssueInfo(repoName(payload), "MR", mr.get("iid").int(), useMergeRequestTitle ? mr.get("title").str() : "");
  }
  if (event === "Note Hook Snippet") {
    const snippet = payload.get("snippet");
    return topicWithPrOrIssueInfo(repoName(payload), "snippet", snippet.get("id").int(), snippet.get("title").str());
  }
  if (event === "Resource Access Token Hook" && payload.get("group").truthy()) return payload.at("group.group_name").str();
  if (event === "Deployment Hook") return `${repoName(payload)} / ${payload.get("environment").str()}`;
  return repoName(payload);
}

/** Python's str.title(): each run of letters capitalized, the rest of the run lower-cased. */
function pyTitle(text: string): string {
  let previousIsLetter = false;
  let out = "";
  for (const char of text) {
    const isLetter = char.toLowerCase() !== char.toUpperCase();
    out += isLetter ? (previousIsLetter ? char.toLowerCase() : char.toUpperCase()) : char;
    previousIsLetter = isLetter;
  }
  return out;
}

/**
 * The complete event type (Zulip's get_event), or null for a push to a branch the URL's
 * `branches` leaves out; an event outside the table is unsupported.
 */
function gitlabEvent(hook: WebhookInput): string | null {
  const { payload } = hook;
  let event = hook.eventHeader("X-Gitlab-Event");
  if (event === "System Hook") {
    // A system hook names its kind in the payload: "merge_request" → "Merge Request Hook".
    const kind = payload.has("event_name") ? payload.get("event_name").str() : payload.get("object_kind").str();
    event = `${pyTitle(kind.split("__")[0]!.replaceAll("_", " "))} Hook`;
  }
  if (["Confidential Issue Hook", "Issue Hook", "Merge Request Hook", "Wiki Page Hook"].includes(event)) {
    const attributes = payload.get("object_attributes").dict();
    event = `${event} ${attributes.has("action") ? attributes.get("action").str() : "open"}`;
  } else if (event === "Confidential Note Hook" || event === "Note Hook") {
    event = `${event} ${payload.at("object_attributes.noteable_type").str()}`;
  } else if (event === "Push Hook") {
    const branches = hook.query("branches");
    if (branches !== undefined && !isBranchNameNotifiable(branchName(payload), branches)) return null;
  }
  if (Object.hasOwn(EVENTS, event)) return event;
  throw hook.unsupported(event);
}

/** A JSON boolean URL parameter (Zulip's Json[bool]). */
function jsonBoolParameter(hook: WebhookInput, name: string, absent: boolean): boolean {
  const text = hook.query(name);
  if (text === undefined) return absent;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest(`${name} is not valid JSON`);
  }
  if (typeof value !== "boolean") throw badRequest(`${name} is not a boolean`);
  return value;
}

export default defineIntegration({
  name: "gitlab",
  displayName: "GitLab",
  categories: ["version-control"],
  allEventTypes: Object.keys(EVENTS),
  urlOptions: [BRANCHES_URL_OPTION],
  setup: [
    "In your GitLab project, open **Settings → Webhooks** and add a new webhook.",
    "Set **URL** to the URL above (add `branches=main,release` to post pushes to those branches only),",
    "select the events you want notifications for and save.",
    "Merge request topics carry the merge request's title; add `use_merge_request_title=false` to the URL to name them by number only.",
    "If GitLab and this server share a local network, GitLab may refuse to send the webhook until an administrator enables",
    "**Allow requests to the local network from webhooks and integrations** (Admin area → Settings → Network → Outbound requests).",
    "An instance administrator can also point a GitLab **system hook** at the same URL.",
  ].join(" "),
  handle(hook) {
    const useMergeRequestTitle = jsonBoolParameter(hook, "use_merge_request_title", true);
    const userTopic = hook.query("topic");
    const event = gitlabEvent(hook);
    if (event === null) return null;
    const { payload } = hook;
    let content = EVENTS[event]!(payload, userTopic !== undefined, hook);
    // With the URL's topic, the message names the project it is about.
    if (userTopic) content = `[[${repoName(payload)}](${projectHomepage(payload)})] ${content}`;
    return { topic: topicOf(event, payload, useMergeRequestTitle), content, eventType: event };
  },
});
