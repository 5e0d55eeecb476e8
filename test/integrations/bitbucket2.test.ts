import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness, type WebhookCase } from "./support.js";

/** Bitbucket Cloud: expected topics and texts are those of Zulip's bitbucket2 tests for the same payloads. */
const TOPIC = "Repository name";
const TOPIC_PR = "Repository name / PR #1 new commit";
const TOPIC_ISSUE = "Repository name / issue #1 Bug";
const TOPIC_BRANCH = "Repository name / master";
const REPO = "https://bitbucket.org/kolaszek/repository-name";
const FIRST_COMMIT = `* first commit ([84b96adc644](${REPO}/commits/84b96adc644a30fd6465b3d196369d880762afed))`;
const PUSH = `Tomasz [pushed](${REPO}/branch/master) 1 commit to branch master.\n\n${FIRST_COMMIT}`;
const PUSH_MULTIPLE = `Tomasz [pushed](${REPO}/branch/master) 3 commits to branch master. Commits by Ben (2) and Tomasz (1).\n\n${FIRST_COMMIT}\n${FIRST_COMMIT}\n${FIRST_COMMIT}`;
const PUSH_OTHERS =
  `Tomasz [pushed](${REPO}/branch/master) 10 commits to branch master. Commits by Tomasz (4), James (3), Brendon (2) and others (1).\n\n` +
  Array(10).fill(FIRST_COMMIT).join("\n");
const A_COMMIT = `* a ([6f161a7bced](${REPO}/commits/6f161a7bced94430ac8947d87dbf45c6deee3fb0))\n`;
const PUSH_ABOVE_LIMIT = `Tomasz [pushed](${REPO}/branches/compare/6f161a7bced94430ac8947d87dbf45c6deee3fb0..1221f2fda6f1e3654b09f1f3a08390e4cb25bb48) 5 commits to branch master.\n\n${A_COMMIT.repeat(5)}[and more commit(s)]`;
const FORCE_PUSH = `Tomasz [force pushed](${REPO}/branch/master) to branch master. Head is now 25f93d22b719e2d678a7ad5ee0ef0d1fcdf39c12.`;
const TAG_A = `Tomasz pushed tag [a](${REPO}/commits/tag/a).`;
const PR_CREATED = `Tomasz created [PR #1](${REPO}/pull-requests/1) from \`new-branch\` to \`master\` (assigned to Tomasz Kolek):\n\n~~~ quote\ndescription\n~~~`;
const PR_COMMENT = `(${REPO}/pull-requests/3/_/diff#comment-20576503) on [PR #1](${REPO}/pull-requests/3):\n\n~~~ quote\nComment1\n~~~`;

const pr = (action: string) => ({ "X-Event-Key": `pullrequest:${action}` });
const F = (name: string) => fixture("bitbucket2", name);

const cases: WebhookCase[] = [
  { name: "push", payload: F("push"), topic: TOPIC_BRANCH, content: PUSH },
  { name: "push, commits by several", payload: F("push_multiple_committers"), topic: TOPIC_BRANCH, content: PUSH_MULTIPLE },
  { name: "push, commits by more than three", payload: F("push_multiple_committers_with_others"), topic: TOPIC_BRANCH, content: PUSH_OTHERS },
  { name: "push, truncated commit list", payload: F("push_commits_above_limit"), topic: TOPIC_BRANCH, content: PUSH_ABOVE_LIMIT },
  { name: "push, filtered by branches", payload: F("push"), query: { branches: "master,development" }, topic: TOPIC_BRANCH, content: PUSH },
  { name: "push, another branch is filtered out", payload: F("push"), query: { branches: "changes,development" }, ignored: true },
  {
    name: "push, a branch name that is only part of the filter is filtered out",
    payload: F("push"),
    query: { branches: "mastery" },
    ignored: true,
  },
  { name: "force push", payload: F("force_push"), topic: TOPIC_BRANCH, content: FORCE_PUSH },
  { name: "force push, filtered out", payload: F("force_push"), query: { branches: "changes,development" }, ignored: true },
  { name: "branch deleted", payload: F("remove_branch"), topic: TOPIC_BRANCH, content: "Tomasz deleted branch master." },
  { name: "tag pushed", payload: F("push_one_tag"), headers: pr("push"), topic: TOPIC, content: TAG_A },
  { name: "tag removed", payload: F("push_remove_tag"), topic: TOPIC, content: `Tomasz removed tag [a](${REPO}/commits/tag/a).` },
  {
    name: "two tags pushed: a message each",
    payload: F("push_more_than_one_tag"),
    messages: [
      { topic: TOPIC, content: TAG_A },
      { topic: TOPIC, content: `Tomasz pushed tag [b](${REPO}/commits/tag/b).` },
    ],
  },
  {
    name: "a branch and a tag in one push",
    payload: F("more_than_one_push_event"),
    messages: [
      { topic: TOPIC_BRANCH, content: PUSH },
      { topic: TOPIC, content: TAG_A },
    ],
  },
  {
    name: "a branch and a tag, the last change (a tag) is not filtered",
    payload: F("more_than_one_push_event"),
    query: { branches: "changes,development" },
    messages: [
      { topic: TOPIC_BRANCH, content: PUSH },
      { topic: TOPIC, content: TAG_A },
    ],
  },
  { name: "push without changes posts nothing", payload: F("push_without_changes"), ignored: true },
  {
    name: "fork",
    payload: F("fork"),
    topic: TOPIC,
    content: "Tomasz forked the repository into [kolaszek/repository-name2](https://bitbucket.org/kolaszek/repository-name2).",
  },
  {
    name: "commit comment",
    payload: F("commit_comment_created"),
    topic: TOPIC,
    content: `Tomasz [commented](${REPO}/commits/32c4ea19aa3af10acd08e419e2c354941a365d74#comment-3354963) on [32c4ea19aa3](${REPO}/commits/32c4ea19aa3af10acd08e419e2c354941a365d74):\n~~~ quote\nNice fix!\n~~~`,
  },
  {
    name: "commit status changed",
    payload: F("commit_status_changed"),
    topic: TOPIC,
    content: `[System mybuildtool](https://my-build-tool.com/builds/MY-PROJECT/BUILD-777) changed status of [9fec847784a](${REPO}/commits/9fec847784abb10b2fa567ee63b85bd238955d0e) to SUCCESSFUL.`,
  },
  {
    name: "issue created",
    payload: F("issue_created"),
    topic: TOPIC_ISSUE,
    content: `Tomasz created [issue #1](${REPO}/issues/2/bug) (assigned to Tomasz):\n\n~~~ quote\nSuch a bug\n~~~`,
  },
  {
    name: "issue created, no assignee",
    payload: F("issue_created_unassigned"),
    topic: TOPIC_ISSUE,
    content: `Tomasz created [issue #1](${REPO}/issues/2/bug):\n\n~~~ quote\nSuch a bug\n~~~`,
  },
  {
    name: "issue created, topic in the URL: the title is in the message",
    payload: F("issue_created"),
    query: { topic: "notifications" },
    topic: "notifications",
    content: `Tomasz created [issue #1 Bug](${REPO}/issues/2/bug) (assigned to Tomasz):\n\n~~~ quote\nSuch a bug\n~~~`,
  },
  { name: "issue updated", payload: F("issue_updated"), topic: TOPIC_ISSUE, content: `Tomasz updated [issue #1](${REPO}/issues/2/bug).` },
  {
    name: "issue commented",
    payload: F("issue_commented"),
    topic: TOPIC_ISSUE,
    content: `Tomasz [commented](${REPO}/issues/2#comment-28973596) on [issue #1](${REPO}/issues/2/bug).`,
  },
  {
    name: "issue commented, topic in the URL",
    payload: F("issue_commented"),
    query: { topic: "notifications" },
    topic: "notifications",
    content: `Tomasz [commented](${REPO}/issues/2#comment-28973596) on [issue #1 Bug](${REPO}/issues/2/bug).`,
  },
  { name: "pull request created", payload: F("pull_request_created_or_updated"), headers: pr("created"), topic: TOPIC_PR, content: PR_CREATED },
  {
    name: "pull request created, a reviewer with a display name only",
    payload: F("pull_request_created_or_updated_without_username"),
    headers: pr("created"),
    topic: TOPIC_PR,
    content: PR_CREATED,
  },
  {
    name: "pull request created, no reviewers nor description",
    payload: F("pull_request_created_without_reviewers"),
    headers: pr("created"),
    topic: TOPIC_PR,
    content: `Tomasz created [PR #1](${REPO}/pull-requests/1) from \`new-branch\` to \`master\`.`,
  },
  {
    name: "pull request created, topic in the URL",
    payload: F("pull_request_created_or_updated"),
    headers: pr("created"),
    query: { topic: "notifications" },
    topic: "notifications",
    content: `Tomasz created [PR #1 new commit](${REPO}/pull-requests/1) from \`new-branch\` to \`master\` (assigned to Tomasz Kolek):\n\n~~~ quote\ndescription\n~~~`,
  },
  {
    name: "pull request updated",
    payload: F("pull_request_created_or_updated"),
    headers: pr("updated"),
    topic: TOPIC_PR,
    content: `Tomasz updated [PR #1](${REPO}/pull-requests/1) (assigned to Tomasz Kolek):\n\n~~~ quote\ndescription\n~~~`,
  },
  {
    name: "pull request approved",
    payload: F("pull_request_approved_or_unapproved"),
    headers: pr("approved"),
    topic: TOPIC_PR,
    content: `Tomasz approved [PR #1](${REPO}/pull-requests/1).`,
  },
  {
    name: "pull request approved, topic in the URL",
    payload: F("pull_request_approved_or_unapproved"),
    headers: pr("approved"),
    query: { topic: "notifications" },
    topic: "notifications",
    content: `Tomasz approved [PR #1 new commit](${REPO}/pull-requests/1).`,
  },
  {
    name: "pull request unapproved",
    payload: F("pull_request_approved_or_unapproved"),
    headers: pr("unapproved"),
    topic: TOPIC_PR,
    content: `Tomasz unapproved [PR #1](${REPO}/pull-requests/1).`,
  },
  {
    name: "pull request declined",
    payload: F("pull_request_fulfilled_or_rejected"),
    headers: pr("rejected"),
    topic: TOPIC_PR,
    content: `Tomasz rejected [PR #1](${REPO}/pull-requests/1).`,
  },
  {
    name: "pull request merged",
    payload: F("pull_request_fulfilled_or_rejected"),
    headers: pr("fulfilled"),
    topic: TOPIC_PR,
    content: `Tomasz merged [PR #1](${REPO}/pull-requests/1) from \`new-branch\` to \`master\`.`,
  },
  {
    name: "pull request comment created",
    payload: F("pull_request_comment_action"),
    headers: pr("comment_created"),
    topic: TOPIC_PR,
    content: `Tomasz [commented]${PR_COMMENT}`,
  },
  {
    name: "pull request comment created, topic in the URL",
    payload: F("pull_request_comment_action"),
    headers: pr("comment_created"),
    query: { topic: "notifications" },
    topic: "notifications",
    content: `Tomasz [commented]${PR_COMMENT.replace("[PR #1]", "[PR #1 new commit]")}`,
  },
  {
    name: "pull request comment updated",
    payload: F("pull_request_comment_action"),
    headers: pr("comment_updated"),
    topic: TOPIC_PR,
    content: `Tomasz updated a [comment]${PR_COMMENT}`,
  },
  {
    name: "pull request comment deleted",
    payload: F("pull_request_comment_action"),
    headers: pr("comment_deleted"),
    topic: TOPIC_PR,
    content: `Tomasz deleted a [comment]${PR_COMMENT}`,
  },
  {
    name: "repository updated",
    payload: F("repo_updated"),
    headers: { "X-Event-Key": "repo:updated" },
    topic: "new-name",
    content: [
      "eeshangarg changed the website of the **new-name** repo to **http://zulipchat.com**.",
      "eeshangarg changed the name of the **new-name** repo from **test-repo** to **new-name**.",
      "eeshangarg changed the language of the **new-name** repo to **python**.",
      "eeshangarg changed the full name of the **new-name** repo from **webhooktest/test-repo** to **webhooktest/new-name**.",
      "eeshangarg changed the description of the **new-name** repo to **Random description.**",
    ].join("\n"),
  },
  {
    name: "a pull request event Zulip does not post is unsupported",
    payload: F("pull_request_approved_or_unapproved"),
    headers: pr("changes_request_created"),
    ignored: { unsupportedEvent: "pullrequest:changes_request_created" },
  },
  {
    name: "a repository event Zulip does not post is unsupported",
    payload: { actor: { display_name: "Tomasz" }, repository: { name: "Repository name" } },
    headers: { "X-Event-Key": "repo:transfer" },
    ignored: { unsupportedEvent: "repo:transfer" },
  },
  {
    name: "a topic Bitbucket escaped twice is unquoted",
    payload: F("fork"),
    query: { topic: "my%20topic" },
    topic: "my topic",
    content: "Tomasz forked the repository into [kolaszek/repository-name2](https://bitbucket.org/kolaszek/repository-name2).",
  },
  { name: "only_events leaves a fork out", payload: F("fork"), query: { only_events: '["push"]' }, ignored: true },
  { name: "exclude_events leaves a push out", payload: F("push"), query: { exclude_events: '["push"]' }, ignored: true },
  {
    name: "only_events with a pattern keeps pull request events",
    payload: F("pull_request_approved_or_unapproved"),
    headers: pr("approved"),
    query: { only_events: '["pull_request_*"]' },
    topic: TOPIC_PR,
    content: `Tomasz approved [PR #1](${REPO}/pull-requests/1).`,
  },
];

describe("bitbucket2 (Bitbucket Cloud)", () => {
  const h = useWebhookHarness();
  itPosts(h, "bitbucket2", cases);

  it("an actor without display_name or nickname is 'Unknown user'", async () => {
    const payload = structuredClone(F("fork")) as { actor: Record<string, unknown> };
    payload.actor = { type: "user", uuid: "{678ab31f-9f88-4d7a-b343-1bdf9f024917}" };
    const res = await h.post("bitbucket2", payload);
    expect(res.status).toBe(200);
    expect((await h.newest())?.content).toBe(
      "Unknown user forked the repository into [kolaszek/repository-name2](https://bitbucket.org/kolaszek/repository-name2).",
    );
  });

  it("a payload missing a field Zulip reads is a 400, nothing posted", async () => {
    const before = (await h.newest())?.id ?? 0;
    const payload = structuredClone(F("fork")) as { fork: Record<string, unknown> };
    delete payload.fork.full_name;
    const res = await h.post("bitbucket2", payload);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: "error", msg: "payload['fork']['full_name'] is missing" });
    expect(await h.since(before)).toEqual([]);
  });

  it("a pull request without the X-Event-Key header is a 400", async () => {
    const before = (await h.newest())?.id ?? 0;
    const res = await h.post("bitbucket2", F("pull_request_approved_or_unapproved"));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: "error", code: "MISSING_HTTP_EVENT_HEADER", header: "X-Event-Key" });
    expect(await h.since(before)).toEqual([]);
  });
});
