import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness, type WebhookCase } from "./support.js";

/** Bitbucket Server: expected topics and texts are those of Zulip's bitbucket3 tests for the same payloads. */
const H = "http://139.59.64.214:7990";
const HYPRO = `[hypro999](${H}/users/hypro999)`;
const ZURA = `[zura](${H}/users/zura)`;
const SHIMURA = `[shimura](${H}/users/shimura)`;
const SOUGO = `[sougo](${H}/users/sougo)`;
const COMMIT = `[508d1b67f1f](${H}/projects/SBOX/repos/sandbox/commits/508d1b67f1f8f3a25f543a030a7a178894aa9907)`;
const PR = (n: number) => `${H}/projects/SBOX/repos/sandbox/pull-requests/${n}`;
const TOPIC_PR1 = "sandbox / PR #1 Branch1";
const TOPIC_PR6 = "sandbox / PR #6 sample_file: Add sample_file.txt.";
const MASTER = `${HYPRO} pushed to branch master. Head is now fc43d13cff1abb28631196944ba4fc4ad06a2cf2.`;
const BRANCH1 = `${HYPRO} pushed to branch branch1. Head is now 3980c2be32a7e23c795741d5dc1a2eecb9b85d6d.`;
const MODIFIED_BODY = "~~~ quote\n* Add file2.txt\n* Add file3.txt\nBoth of these files would be important additions to the project!\n~~~";
const CUSTOM = { topic: "custom_topic" };

const F = (name: string) => fixture("bitbucket3", name);

const cases: WebhookCase[] = [
  {
    name: "ping",
    payload: F("diagnostics_ping"),
    headers: { "X-Event-Key": "diagnostics:ping" },
    topic: "Bitbucket Server Ping",
    content: "Congratulations! The Bitbucket Server webhook was configured successfully!",
  },
  {
    name: "ping, topic in the URL",
    payload: F("diagnostics_ping"),
    headers: { "X-Event-Key": "diagnostics:ping" },
    query: { topic: "my topic" },
    topic: "my topic",
    content: "Congratulations! The Bitbucket Server webhook was configured successfully!",
  },
  {
    name: "ping, a topic escaped twice is unquoted",
    payload: F("diagnostics_ping"),
    headers: { "X-Event-Key": "diagnostics:ping" },
    query: { topic: "my%20topic" },
    topic: "my topic",
    content: "Congratulations! The Bitbucket Server webhook was configured successfully!",
  },
  {
    name: "commit comment added",
    payload: F("commit_comment_added"),
    topic: "sandbox",
    content: `${HYPRO} commented on ${COMMIT}:\n~~~ quote\nJust an arbitrary comment on a commit.\n~~~`,
  },
  {
    name: "commit comment edited",
    payload: F("commit_comment_edited"),
    topic: "sandbox",
    content: `${HYPRO} edited their comment on ${COMMIT}:\n~~~ quote\nJust an arbitrary comment on a commit. Nothing to see here...\n~~~`,
  },
  {
    name: "commit comment deleted",
    payload: F("commit_comment_deleted"),
    topic: "sandbox",
    content: `${HYPRO} deleted their comment on ${COMMIT}:\n~~~ quote\n~~Just an arbitrary comment on a commit. Nothing to see here...~~\n~~~`,
  },
  {
    name: "repository forked",
    payload: F("repo_forked"),
    topic: "sandbox",
    content: `User Hemanth V. Alluri(login: ${HYPRO}) forked the repository into [sandbox fork](${H}/users/hypro999/repos/sandbox-fork/browse).`,
  },
  {
    name: "repository renamed",
    payload: F("repo_modified"),
    topic: "sandbox v2",
    content: `${HYPRO} changed the name of the **sandbox** repo from **sandbox** to **sandbox v2**.`,
  },
  { name: "branch created", payload: F("repo_push_add_branch"), topic: "sandbox / branch2", content: `${HYPRO} created branch2 branch.` },
  { name: "tag pushed", payload: F("repo_push_add_tag"), topic: "sandbox", content: `${HYPRO} pushed tag newtag.` },
  { name: "branch deleted", payload: F("repo_push_delete_branch"), topic: "sandbox / branch2", content: `${HYPRO} deleted branch branch2.` },
  { name: "tag deleted", payload: F("repo_push_delete_tag"), topic: "sandbox", content: `${HYPRO} removed tag test-tag.` },
  {
    name: "branch updated",
    payload: F("repo_push_update_single_branch"),
    topic: "sandbox / master",
    content: `${HYPRO} pushed to branch master. Head is now e68c981ef53dbab0a5ca320a2d8d80e216c70528.`,
  },
  {
    name: "two branches updated: a message each",
    payload: F("repo_push_update_multiple_branches"),
    messages: [
      { topic: "sandbox / branch1", content: BRANCH1 },
      { topic: "sandbox / master", content: MASTER },
    ],
  },
  {
    name: "two branches updated, filtered to master",
    payload: F("repo_push_update_multiple_branches"),
    query: { branches: "master" },
    topic: "sandbox / master",
    content: MASTER,
  },
  {
    name: "two branches updated, filtered to branch1",
    payload: F("repo_push_update_multiple_branches"),
    query: { branches: "branch1" },
    topic: "sandbox / branch1",
    content: BRANCH1,
  },
  { name: "two branches updated, neither in the filter", payload: F("repo_push_update_multiple_branches"), query: { branches: "dev" }, ignored: true },
  {
    name: "PR opened without reviewers",
    payload: F("pull_request_opened_without_reviewers"),
    topic: TOPIC_PR1,
    content: `${HYPRO} opened [PR #1](${PR(1)}) from \`branch1\` to \`master\`:\n\n~~~ quote\n* Add file2.txt\r\n* Add file3.txt\n~~~`,
  },
  {
    name: "PR opened without description",
    payload: F("pull_request_opened_without_description"),
    topic: "sandbox / PR #2 Add notes feature.",
    content: `${HYPRO} opened [PR #2](${PR(2)}) from \`master\` to \`master\`.`,
  },
  {
    name: "PR opened with two reviewers",
    payload: F("pull_request_opened_with_two_reviewers"),
    topic: "sandbox / PR #5 Add Notes Feature",
    content: `${HYPRO} opened [PR #5](${PR(5)}) from \`master\` to \`master\` (assigned reviewers: ${SHIMURA} and ${SOUGO}).`,
  },
  {
    name: "PR opened with two reviewers, topic in the URL",
    payload: F("pull_request_opened_with_two_reviewers"),
    query: CUSTOM,
    topic: "custom_topic",
    content: `${HYPRO} opened [PR #5 Add Notes Feature](${PR(5)}) from \`master\` to \`master\` (assigned reviewers: ${SHIMURA} and ${SOUGO}).`,
  },
  {
    name: "PR opened with three reviewers",
    payload: F("pull_request_opened_with_multiple_reviewers"),
    topic: TOPIC_PR6,
    content: `${HYPRO} opened [PR #6](${PR(6)}) from \`master\` to \`master\` (assigned reviewers: ${SOUGO}, [zura](${H}/users/zura) and ${SHIMURA}):\n\n~~~ quote\nAdd a simple text file for further testing purposes.\n~~~`,
  },
  {
    name: "PR modified",
    payload: F("pull_request_modified"),
    topic: TOPIC_PR1,
    content: `${HYPRO} modified [PR #1](${PR(1)}) (assigned reviewers: ${SHIMURA}):\n\n${MODIFIED_BODY}`,
  },
  {
    name: "PR modified, topic in the URL",
    payload: F("pull_request_modified"),
    query: CUSTOM,
    topic: "custom_topic",
    content: `${HYPRO} modified [PR #1 Branch1](${PR(1)}) (assigned reviewers: ${SHIMURA}):\n\n${MODIFIED_BODY}`,
  },
  { name: "PR deleted", payload: F("pull_request_deleted"), topic: "sandbox / PR #2 Add notes feature.", content: `${HYPRO} deleted [PR #2](${PR(2)}).` },
  {
    name: "PR deleted, topic in the URL: no second period after the title's",
    payload: F("pull_request_deleted"),
    query: CUSTOM,
    topic: "custom_topic",
    content: `${HYPRO} deleted [PR #2 Add notes feature.](${PR(2)})`,
  },
  { name: "PR declined", payload: F("pull_request_declined"), topic: "sandbox / PR #7 Crazy Idea", content: `${ZURA} declined [PR #7](${PR(7)}).` },
  { name: "PR merged", payload: F("pull_request_merged"), topic: TOPIC_PR6, content: `${ZURA} merged [PR #6](${PR(6)}) from \`master\` to \`master\`.` },
  { name: "PR approved", payload: F("pull_request_approved"), topic: TOPIC_PR6, content: `${ZURA} approved [PR #6](${PR(6)}).` },
  { name: "PR unapproved", payload: F("pull_request_unapproved"), topic: TOPIC_PR6, content: `${ZURA} unapproved [PR #6](${PR(6)}).` },
  { name: "PR marked as needs work", payload: F("pull_request_needs_work"), topic: TOPIC_PR6, content: `${ZURA} marked [PR #6](${PR(6)}) as "needs work".` },
  {
    name: "PR marked as needs work, topic in the URL",
    payload: F("pull_request_needs_work"),
    query: CUSTOM,
    topic: "custom_topic",
    content: `${ZURA} marked [PR #6 sample_file: Add sample_file.txt.](${PR(6)}) as "needs work".`,
  },
  { name: "PR reviewer added", payload: F("pull_request_add_reviewer"), topic: TOPIC_PR1, content: `${HYPRO} reassigned [PR #1](${PR(1)}) to ${SHIMURA}.` },
  {
    name: "PR reviewer added, topic in the URL",
    payload: F("pull_request_add_reviewer"),
    query: CUSTOM,
    topic: "custom_topic",
    content: `${HYPRO} reassigned [PR #1 Branch1](${PR(1)}) to ${SHIMURA}.`,
  },
  {
    name: "PR reviewers added",
    payload: F("pull_request_add_two_reviewers"),
    topic: TOPIC_PR1,
    content: `${HYPRO} reassigned [PR #1](${PR(1)}) to ${SHIMURA} and ${SOUGO}.`,
  },
  {
    name: "PR reviewers all removed",
    payload: F("pull_request_remove_reviewer"),
    topic: TOPIC_PR1,
    content: `${HYPRO} removed all reviewers from [PR #1](${PR(1)}).`,
  },
  {
    name: "PR reviewers all removed, topic in the URL",
    payload: F("pull_request_remove_reviewer"),
    query: CUSTOM,
    topic: "custom_topic",
    content: `${HYPRO} removed all reviewers from [PR #1 Branch1](${PR(1)}).`,
  },
  {
    name: "PR comment added",
    payload: F("pull_request_comment_added"),
    topic: TOPIC_PR6,
    content: `${ZURA} commented on [PR #6](${PR(6)}):\n\n~~~ quote\nThis seems like a pretty good idea.\n~~~`,
  },
  {
    name: "PR comment edited",
    payload: F("pull_request_comment_edited"),
    topic: TOPIC_PR6,
    content: `${ZURA} edited their comment on [PR #6](${PR(6)}):\n\n~~~ quote\nThis seems like a pretty good idea. @shimura what do you think?\n~~~`,
  },
  {
    name: "PR comment deleted",
    payload: F("pull_request_comment_deleted"),
    topic: TOPIC_PR6,
    content: `${ZURA} deleted their comment on [PR #6](${PR(6)}):\n\n~~~ quote\n~~This seems like a pretty good idea. @shimura what do you think?~~\n~~~`,
  },
  { name: "an event Zulip does not post is unsupported", payload: F("pull_request_from_ref_updated"), ignored: { unsupportedEvent: "pr:from_ref_updated" } },
  { name: "only_events leaves pushes out", payload: F("repo_push_add_tag"), query: { only_events: '["pr:*"]' }, ignored: true },
  {
    name: "exclude_events with a pattern keeps other events",
    payload: F("pull_request_approved"),
    query: { exclude_events: '["repo:*"]' },
    topic: TOPIC_PR6,
    content: `${ZURA} approved [PR #6](${PR(6)}).`,
  },
];

describe("bitbucket3 (Bitbucket Server)", () => {
  const h = useWebhookHarness();
  itPosts(h, "bitbucket3", cases);

  it("a payload missing a field Zulip reads is a 400, nothing posted", async () => {
    const before = (await h.newest())?.id ?? 0;
    const payload = structuredClone(F("pull_request_approved")) as { pullRequest: Record<string, unknown> };
    delete payload.pullRequest.title;
    const res = await h.post("bitbucket3", payload);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: "error", msg: "payload['pullRequest']['title'] is missing" });
    expect(await h.since(before)).toEqual([]);
  });

  it("without an eventKey in the payload, X-Event-Key is required", async () => {
    const res = await h.post("bitbucket3", F("diagnostics_ping"));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: "error", code: "MISSING_HTTP_EVENT_HEADER", header: "X-Event-Key" });
  });
});
