import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness, type WebhookCase } from "./support.js";

/**
 * Zulip's GitHub integration: the X-GitHub-Event header names the event; topics and messages
 * are those of Zulip's zerver/webhooks/github for the same payloads.
 */
const h = useWebhookHarness();

const R = "https://github.com/octo-org/public-repo";
const SHA = "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c";
const SHA2 = "9049f1265b7d61be4a8904a9a27120d2064dab3b";
const CMP = `${R}/compare/9049f1265b7d...0d1a26e67d8f`;
const P = `${R}/pull/1`;
const I = `${R}/issues/2`;
const TOPIC_REPO = "public-repo";
const TOPIC_BRANCH = "public-repo / changes";
const TOPIC_PR = "public-repo / PR #1 Update the README with new information";
const TOPIC_ISSUE = "public-repo / issue #2 Spelling error in the README file";
const TOPIC_DISCUSSION = "public-repo discussion #20: Lets discuss";
const COMMIT_ROW = `* Update README.md ([0d1a26e67d8](${R}/commit/${SHA}))`;

/** A case whose fixture is test/integrations/fixtures/github/<name>.json and whose event header is the part before "__". */
function gh(name: string, rest: Omit<WebhookCase, "name" | "payload" | "headers"> & { event?: string; label?: string }): WebhookCase {
  const { event, label, ...expected } = rest;
  return { name: label ?? name, payload: fixture("github", name), headers: { "X-GitHub-Event": event ?? name.split("__")[0]! }, ...expected };
}

describe("GitHub: pushes, refs and commits", () => {
  const stepRows = Array.from({ length: 20 }, (_, i) => `* Step ${i} ([0d1a26e67d8](${R}/commit/${SHA}))`).join("\n");
  itPosts(h, "github", [
    gh("push__1_commit", { event: "push", topic: TOPIC_BRANCH, content: `octocat [pushed](${CMP}) 1 commit to branch changes.\n\n${COMMIT_ROW}` }),
    gh("push__1_commit", {
      label: "push filtered by branches, branch listed",
      event: "push",
      query: { branches: "master, changes" },
      topic: TOPIC_BRANCH,
      content: `octocat [pushed](${CMP}) 1 commit to branch changes.\n\n${COMMIT_ROW}`,
    }),
    gh("push__1_commit", { label: "push filtered by branches, branch not listed", event: "push", query: { branches: "master,development" }, ignored: true }),
    gh("push__multiple_committers", {
      event: "push",
      topic: TOPIC_BRANCH,
      content:
        `octocat [pushed](${CMP}) 3 commits to branch changes. Commits by alice (2) and Bob Builder (1).\n\n` +
        `* Fix the build ([0d1a26e67d8](${R}/commit/${SHA}))\n* Add a changelog ([9049f1265b7](${R}/commit/${SHA2}))\n* Fix the tests ([0d1a26e67d8](${R}/commit/${SHA}))`,
    }),
    gh("push__22_commits", {
      event: "push",
      topic: TOPIC_BRANCH,
      content: `octocat [pushed](${CMP}) 22 commits to branch changes.\n\n${stepRows}\n[and 2 more commit(s)]`,
    }),
    gh("push__delete_branch", {
      event: "push",
      topic: "public-repo / feature",
      content: `octocat [deleted](${R}/compare/2e8cf535fb38...000000000000) the branch feature.`,
    }),
    gh("push__force_remove_commits", {
      event: "push",
      topic: "public-repo / temp",
      content: `octocat [force pushed](${R}/compare/2084a91af9ca...9a8749ea8fe7) the branch temp.`,
    }),
    gh("push__tag", { topic: TOPIC_REPO, content: "octocat pushed tag v1.0." }),
    gh("push__delete_tag", { event: "push", topic: TOPIC_REPO, content: "octocat removed tag v1.0." }),
    gh("push__merge_queue", { event: "push", ignored: true }),
    gh("create", { topic: TOPIC_REPO, content: "octocat created tag 0.0.1." }),
    gh("delete", { topic: TOPIC_REPO, content: "octocat deleted branch feature." }),
    gh("commit_comment", {
      topic: TOPIC_REPO,
      content: `octocat [commented](${R}/commit/${SHA2}#commitcomment-11056394) on [9049f1265b7](${R}/commit/${SHA2}):\n~~~ quote\nThis is a really good change! :+1:\n~~~`,
    }),
    gh("status", { topic: TOPIC_REPO, content: `[9049f1265b7](${R}/commit/${SHA2}) changed its status to success.` }),
    gh("status__with_target_url", {
      topic: TOPIC_REPO,
      content: `[9049f1265b7](${R}/commit/${SHA2}) changed its status to [success](https://example.com/build/status).`,
    }),
    gh("check_run__completed", {
      topic: "public-repo / checks",
      content: `Check [randscape](${R}/runs/4) completed (success). ([d6fde92930d](${R}/commit/d6fde92930d4715a2b49857d24b940956b26d2d3))`,
    }),
    gh("check_run__in_progress", { ignored: true }),
  ]);
});

describe("GitHub: pull requests", () => {
  itPosts(h, "github", [
    gh("pull_request__opened", {
      topic: TOPIC_PR,
      content: `octocat opened [PR #1](${P}) from \`octocat:changes\` to \`octo-org:master\`:\n\n~~~ quote\nThis is a pretty simple change that we need to pull into master.\n~~~`,
    }),
    gh("pull_request__opened", {
      label: "pull_request opened, with a topic in the URL",
      query: { topic: "notifications" },
      topic: "notifications",
      content: `octocat opened [PR #1 Update the README with new information](${P}) from \`octocat:changes\` to \`octo-org:master\`:\n\n~~~ quote\nThis is a pretty simple change that we need to pull into master.\n~~~`,
    }),
    gh("pull_request__opened_with_preassigned_assignee", {
      topic: "public-repo / PR #4 Improve README",
      content: `octocat opened [PR #4](${R}/pull/4) from \`octocat:changes\` to \`octo-org:master\` (assigned to hubot).`,
    }),
    gh("pull_request__reopened", { topic: TOPIC_PR, content: `octocat reopened [PR #1](${P}).` }),
    gh("pull_request__synchronize", { topic: TOPIC_PR, content: `octocat updated [PR #1](${P}).` }),
    gh("pull_request__edited_body", { topic: TOPIC_PR, content: `octocat edited [PR #1](${P}):\n\n~~~ quote\nPR EDITED\n~~~` }),
    gh("pull_request__closed", { topic: TOPIC_PR, content: `octocat closed without merge [PR #1](${P}).` }),
    gh("pull_request__merged", { topic: TOPIC_PR, content: `octocat merged [PR #1](${P}).` }),
    gh("pull_request__merged", {
      label: "pull_request merged, with a topic in the URL",
      query: { topic: "notifications" },
      topic: "notifications",
      content: `octocat merged [PR #1 Update the README with new information](${P}).`,
    }),
    gh("pull_request__assigned", { topic: TOPIC_PR, content: `octocat assigned hubot to [PR #1](${P}).` }),
    gh("pull_request__unassigned", { topic: TOPIC_PR, content: `octocat unassigned hubot from [PR #1](${P}).` }),
    gh("pull_request__review_requested", {
      topic: TOPIC_PR,
      content: `**octocat** requested [hubot](https://github.com/hubot) for a review on [PR #1](${P}).`,
    }),
    gh("pull_request__review_requested_team_reviewer", {
      topic: TOPIC_PR,
      content: `**octocat** requested [reviewers](https://github.com/orgs/octo-org/teams/reviewers) for a review on [PR #1](${P}).`,
    }),
    gh("pull_request__review_requested", {
      label: "pull_request review_requested, with a topic in the URL",
      query: { topic: "notifications" },
      topic: "notifications",
      content: `**octocat** requested [hubot](https://github.com/hubot) for a review on [PR #1 Update the README with new information](${P}).`,
    }),
    gh("pull_request__ready_for_review", { topic: TOPIC_PR, content: `**octocat** has marked [PR #1](${P}) as ready for review.` }),
    gh("pull_request__locked", {
      topic: TOPIC_PR,
      content: `octocat has locked [PR #1](${P}) as off-topic and limited conversation to collaborators.`,
    }),
    gh("pull_request__unlocked", { topic: TOPIC_PR, content: `octocat has unlocked [PR #1](${P}).` }),
    gh("pull_request__auto_merge_enabled", { topic: TOPIC_PR, content: `octocat has enabled auto merge for [PR #1](${P}).` }),
    gh("pull_request__auto_merge_disabled", { topic: TOPIC_PR, content: `octocat has disabled auto merge for [PR #1](${P}).` }),
    gh("pull_request__labeled", { ignored: true }),
    gh("pull_request__milestoned", { ignored: { unsupportedEvent: "pull_request:milestoned" } }),
    gh("pull_request_review", {
      topic: TOPIC_PR,
      content: `octocat submitted [PR review](${P}#pullrequestreview-2626884):\n\n~~~ quote\nLooks great!\n~~~`,
    }),
    gh("pull_request_review", {
      label: "pull_request_review, with a topic in the URL",
      query: { topic: "notifications" },
      topic: "notifications",
      content: `octocat submitted [PR review for #1 Update the README with new information](${P}#pullrequestreview-2626884):\n\n~~~ quote\nLooks great!\n~~~`,
    }),
    gh("pull_request_review__empty_body", { topic: TOPIC_PR, content: `octocat submitted [PR review](${P}#pullrequestreview-2626884).` }),
    gh("pull_request_review__edited_empty_changes", { ignored: true }),
    gh("pull_request_review_comment", {
      topic: TOPIC_PR,
      content: `octocat created [PR review comment](${P}#discussion_r29724692):\n\n~~~ quote\nMaybe you should use more emoji on this line.\n~~~`,
    }),
    gh("pull_request_review_comment", {
      label: "pull_request_review_comment, with a topic in the URL",
      query: { topic: "notifications" },
      topic: "notifications",
      content: `octocat created [PR review comment on #1 Update the README with new information](${P}#discussion_r29724692):\n\n~~~ quote\nMaybe you should use more emoji on this line.\n~~~`,
    }),
    gh("pull_request_review_comment__edited_unchanged", { ignored: true }),
  ]);
});

describe("GitHub: issues and comments", () => {
  itPosts(h, "github", [
    gh("issues__opened", {
      topic: TOPIC_ISSUE,
      content: `octocat opened [issue #2](${I}):\n\n~~~ quote\nIt looks like you accidentally spelled 'commit' with two 't's.\n~~~`,
    }),
    gh("issues__opened", {
      label: "issues opened, with a topic in the URL",
      query: { topic: "notifications" },
      topic: "notifications",
      content: `octocat opened [issue #2 Spelling error in the README file](${I}):\n\n~~~ quote\nIt looks like you accidentally spelled 'commit' with two 't's.\n~~~`,
    }),
    gh("issues__closed", { topic: TOPIC_ISSUE, content: `octocat closed [issue #2](${I}).` }),
    gh("issues__assigned", {
      topic: "public-repo / issue #7 Testing when issue assigned!",
      content: `octocat assigned hubot to [issue #7](${R}/issues/7).`,
    }),
    gh("issues__assigned", {
      label: "issues assigned, with a topic in the URL (a title ending in punctuation gets no period)",
      query: { topic: "notifications" },
      topic: "notifications",
      content: `octocat assigned hubot to [issue #7 Testing when issue assigned!](${R}/issues/7)`,
    }),
    gh("issues__labeled", { topic: TOPIC_ISSUE, content: `[octocat](https://github.com/octocat) added the bug label to [Issue #2](${I}).` }),
    gh("issues__unlabeled", { topic: TOPIC_ISSUE, content: `[octocat](https://github.com/octocat) removed the bug label from [Issue #2](${I}).` }),
    gh("issues__milestoned", {
      topic: "public-repo / issue #6 This is a sample issue to test GH ...",
      content: `[octocat](https://github.com/octocat) added milestone [v1.0](${R}/milestone/1) to [issue #6](${R}/issues/6).`,
    }),
    gh("issues__demilestoned", {
      topic: TOPIC_ISSUE,
      content: `[octocat](https://github.com/octocat) removed milestone [v1.0](${R}/milestone/1) from [issue #2](${I}).`,
    }),
    gh("issues__transferred", {
      topic: TOPIC_ISSUE,
      content: `octocat transferred [issue #2 Spelling error in the README file](${I}) to [octo-org/new-repo/#5](https://github.com/octo-org/new-repo/issues/5).`,
    }),
    gh("issues__opened_via_transfer", {
      topic: "new-repo / issue #5 Spelling error in the README file",
      content: `[Issue #5 Spelling error in the README file](https://github.com/octo-org/new-repo/issues/5) was transferred from [octo-org/public-repo#2](${I}).`,
    }),
    gh("issue_comment", {
      topic: TOPIC_ISSUE,
      content: `octocat [commented](${I}#issuecomment-99262140) on [issue #2](${I}):\n\n~~~ quote\nYou are totally right! I'll get this fixed right away.\n~~~`,
    }),
    gh("issue_comment__pull_request_comment", {
      topic: TOPIC_PR,
      content: `octocat [commented](${P}#issuecomment-1631445420) on [PR #1](${P}):\n\n~~~ quote\nSome comment\n~~~`,
    }),
    gh("issue_comment__deleted", {
      topic: TOPIC_ISSUE,
      content: `octocat deleted a [comment](${I}#issuecomment-425164194) on [issue #2](${I}):\n\n~~~ quote\nThis is a comment on this issue.\n~~~`,
    }),
    gh("issue_comment__edited_unchanged", { ignored: true }),
    gh("discussion", {
      topic: TOPIC_DISCUSSION,
      content: `octocat created [discussion #20](${R}/discussions/20) in General:\n\n~~~ quote\n### Lets discuss\nSome random text about which no one cares.\n~~~`,
    }),
    gh("discussion_comment", {
      topic: TOPIC_DISCUSSION,
      content: `octocat [commented](${R}/discussions/20#discussioncomment-6332416) on [discussion #20](${R}/discussions/20):\n\n~~~ quote\nsome random comment\n~~~`,
    }),
    gh("discussion_comment__edited", {
      topic: TOPIC_DISCUSSION,
      content: `octocat edited a [comment](${R}/discussions/20#discussioncomment-6332416) on [discussion #20](${R}/discussions/20):\n\n~~~ quote\nsome random comment\n~~~`,
    }),
    gh("discussion_comment", {
      label: "discussion_comment, with a topic in the URL",
      query: { topic: "notifications" },
      topic: "notifications",
      content: `octocat [commented](${R}/discussions/20#discussioncomment-6332416) on [discussion #20 Lets discuss](${R}/discussions/20):\n\n~~~ quote\nsome random comment\n~~~`,
    }),
  ]);
});

describe("GitHub: repositories, organizations and the rest", () => {
  const REPO_LINK = `[octo-org/public-repo](${R})`;
  itPosts(h, "github", [
    gh("ping", { topic: TOPIC_REPO, content: "GitHub webhook has been successfully configured by octocat." }),
    gh("ping__organization", { topic: "octo-org", content: "GitHub webhook has been successfully configured by octocat." }),
    gh("fork", { topic: TOPIC_REPO, content: "octocat forked [public-repo](https://github.com/hubot/public-repo)." }),
    gh("gollum__wiki_pages", {
      topic: "public-repo / wiki pages",
      content: `octocat:\n* created [Home](${R}/wiki/Home)\n* edited [Setup](${R}/wiki/Setup)`,
    }),
    gh("member", { topic: TOPIC_REPO, content: `octocat added [hubot](https://github.com/hubot) to [public-repo](${R}).` }),
    gh("membership", { topic: "octo-org organization", content: "octocat added [hubot](https://github.com/hubot) to the Contractors team." }),
    gh("membership__removal", { topic: "octo-org organization", content: "octocat removed [hubot](https://github.com/hubot) from the Contractors team." }),
    gh("public", { topic: TOPIC_REPO, content: `octocat made the repository ${REPO_LINK} public.` }),
    gh("release", { topic: TOPIC_REPO, content: `octocat published release [0.0.1](${R}/releases/tag/0.0.1) for tag 0.0.1.` }),
    gh("release__with_name", { topic: TOPIC_REPO, content: `octocat published release [Second release](${R}/releases/tag/v2.0) for tag v2.0.` }),
    gh("repository", { topic: TOPIC_REPO, content: `octocat created the repository ${REPO_LINK}.` }),
    gh("star", { topic: TOPIC_REPO, content: `[octocat](https://github.com/octocat) starred the repository ${REPO_LINK}.` }),
    gh("star__deleted", { topic: TOPIC_REPO, content: `[octocat](https://github.com/octocat) unstarred the repository ${REPO_LINK}.` }),
    gh("watch__repository", { topic: TOPIC_REPO, content: `octocat starred the repository ${REPO_LINK}.` }),
    gh("team_add", { topic: TOPIC_REPO, content: `The repository ${REPO_LINK} was added to team Justice League.` }),
    gh("team__edited_description", {
      topic: "team Justice League",
      content: "**octocat** changed the team description to:\n\n~~~ quote\nA great team\n~~~",
    }),
    gh("team__edited_name", { topic: "team Justice League", content: "Team `Justice Society` was renamed to `Justice League`." }),
    gh("team__edited_privacy_secret", { topic: "team Justice League", content: "Team visibility changed to `secret`" }),
    gh("team__edited_other", { topic: "team Justice League", content: "Team has changes to `parent/repository` data." }),
    gh("team__created", { ignored: true }),
    gh("team__archived", { ignored: { unsupportedEvent: "unsupported team action archived" } }),
    gh("deployment", { topic: "public-repo / Deployment on production", content: "octocat created new deployment." }),
    gh("deployment_status", { topic: "public-repo / Deployment on production", content: "Deployment changed status to success." }),
    gh("page_build", { topic: TOPIC_REPO, content: "GitHub Pages build, triggered by octocat, has finished building." }),
    gh("page_build__errored", {
      topic: TOPIC_REPO,
      content: "GitHub Pages build, triggered by octocat, has failed: \n~~~ quote\nSomething went wrong.\n~~~.",
    }),
  ]);
});

describe("GitHub: URL options, ignored and unsupported events", () => {
  itPosts(h, "github", [
    gh("push__1_commit_private_repository", {
      label: "a private repository's event is posted by default",
      event: "push",
      topic: TOPIC_BRANCH,
      content: `octocat [pushed](${CMP}) 1 commit to branch changes.\n\n${COMMIT_ROW}`,
    }),
    gh("push__1_commit_private_repository", {
      label: "ignore_private_repositories=true skips a private repository",
      event: "push",
      query: { ignore_private_repositories: "true" },
      ignored: true,
    }),
    gh("push__1_commit", {
      label: "ignore_private_repositories=true keeps a public repository",
      event: "push",
      query: { ignore_private_repositories: "true" },
      topic: TOPIC_BRANCH,
      content: `octocat [pushed](${CMP}) 1 commit to branch changes.\n\n${COMMIT_ROW}`,
    }),
    gh("push__1_commit", {
      label: "include_repository_name=true names the repository in a push",
      event: "push",
      query: { include_repository_name: "true" },
      topic: TOPIC_BRANCH,
      content: `octocat [pushed](${CMP}) 1 commit to branch changes of [public-repo](${R}).\n\n${COMMIT_ROW}`,
    }),
    gh("issues__opened", { label: "only_events filters by Zulip's event type", query: { only_events: '["push_commits"]' }, ignored: true }),
    gh("issues__closed", {
      label: "only_events matches Zulip's event type with patterns",
      query: { only_events: '["issue*"]' },
      topic: TOPIC_ISSUE,
      content: `octocat closed [issue #2](${I}).`,
    }),
    gh("workflow_run", { ignored: { unsupportedEvent: "workflow_run:completed" } }),
    ...["check_suite", "label", "meta", "milestone", "organization", "project_card", "repository_vulnerability_alert"].map((event): WebhookCase => ({
      name: `${event} is ignored`,
      payload: {},
      headers: { "X-GitHub-Event": event },
      ignored: true,
    })),
    {
      name: "an unknown event without an action",
      payload: {},
      headers: { "X-GitHub-Event": "security_advisory" },
      ignored: { unsupportedEvent: "security_advisory:???" },
    },
  ]);

  it("a push without its ref is a 400 naming the field, and posts nothing", async () => {
    const before = (await h.newest())?.id ?? 0;
    const { ref: _ref, ...payload } = fixture("github", "push__1_commit") as Record<string, unknown>;
    const res = await h.post("github", payload, { headers: { "X-GitHub-Event": "push" } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: "error", msg: "payload['ref'] is missing" });
    expect(await h.since(before)).toEqual([]);
  });

  it("a request without X-GitHub-Event is Zulip's missing-header error", async () => {
    const before = (await h.newest())?.id ?? 0;
    const res = await h.post("github", fixture("github", "push__1_commit"));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: "error", code: "MISSING_HTTP_EVENT_HEADER", header: "X-GitHub-Event" });
    expect(await h.since(before)).toEqual([]);
  });

  it("ignore_private_repositories must be a JSON boolean", async () => {
    const res = await h.post("github", fixture("github", "push__1_commit"), {
      headers: { "X-GitHub-Event": "push" },
      query: { ignore_private_repositories: "yes" },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: "error", msg: "ignore_private_repositories is not valid JSON" });
  });
});

describe("GitHub Sponsors", () => {
  const sponsors = (name: string, content: string): WebhookCase => ({
    name,
    payload: fixture("github", `sponsorship__${name}`),
    headers: { "X-GitHub-Event": name },
    topic: "sponsors",
    content,
  });
  itPosts(h, "githubsponsors", [
    sponsors("created", "monalisa subscribed for $5 a month."),
    sponsors("cancelled", "monalisa cancelled their $5 a month subscription."),
    sponsors("edited", "monalisa changed who can see their sponsorship from public to private."),
    sponsors("pending_cancellation", "monalisa's $5 a month subscription will be cancelled on January 05, 2020."),
    sponsors("pending_tier_change", "monalisa's subscription will change from $10 a month to $5 a month on December 30, 2019."),
    sponsors("tier_changed", "monalisa changed their subscription from $10 a month to $5 a month."),
  ]);
});
