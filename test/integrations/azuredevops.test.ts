import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness, type WebhookCase } from "./support.js";

/** Azure DevOps: expected topics and texts are those of Zulip's azuredevops tests for the same payloads. */
const WEB = "https://dev.azure.com/ttchong/test-zulip/_git/test-zulip";
const compare = (base: string, target: string) => `${WEB}/branchCompare?baseVersion=GC${base}&targetVersion=GC${target}&_a=files`;
const README = `* Modify readme ([b0ce2f2009c](${WEB}/commit/b0ce2f2009c3c87dbefadf61d7eb2c0697a6f369))`;
const REPLY = `* Add reply ([0929a3404b3](${WEB}/commit/0929a3404b39f6e39076a640779b2c1c961e19b5))`;
const HOW = `* Add how are you ([819ce8de51b](${WEB}/commit/819ce8de51bedfc250c202edcaee0ce8dc70bf3b))`;
const PUSH = `Yuro Itaki [pushed](${compare("51515957669f93c543df09f8f3e7f47c3613c879", "b0ce2f2009c3c87dbefadf61d7eb2c0697a6f369")}) 1 commit to branch main.\n\n${README}`;
const R = "0929a3404b39f6e39076a640779b2c1c961e19b5";
const ZERO = "0".repeat(40);

const F = (name: string) => fixture("azuredevops", name);

const cases: WebhookCase[] = [
  { name: "push", payload: F("code_push"), topic: "test-zulip / main", content: PUSH },
  { name: "push, filtered by branches", payload: F("code_push"), query: { branches: "main,dev" }, topic: "test-zulip / main", content: PUSH },
  { name: "push, another branch is filtered out", payload: F("code_push"), query: { branches: "development" }, ignored: true },
  {
    name: "push of a local branch without commits",
    payload: F("code_push__local_branch_without_commits"),
    topic: "test-zulip / dev",
    content: `Yuro Itaki [pushed](${compare(ZERO, R)}) the branch dev.`,
  },
  {
    name: "push, commits by two",
    payload: F("code_push__multiple_committers"),
    topic: "test-zulip / main",
    content: `Yuro Itaki [pushed](${compare("cc21b940719cc372b364d932eb39e528b0ec2a91", R)}) 2 commits to branch main. Commits by Itachi Sensei (1) and Yuro Itaki (1).\n\n${REPLY}\n${HOW}`,
  },
  {
    name: "push, commits by more than three",
    payload: F("code_push__multiple_committers_with_others"),
    topic: "test-zulip / main",
    content:
      `Yuro Itaki [pushed](${compare("cc21b940719cc372b364d932eb39e528b0ec2a91", R)}) 6 commits to branch main. ` +
      `Commits by Itachi Sensei (2), Yuro Itaki (2), Jonas Nielsen (1) and others (1).\n\n${REPLY}\n${HOW}\n${HOW}\n${HOW}\n${HOW}\n${REPLY}`,
  },
  {
    name: "push of more commits than are listed",
    payload: F("code_push__commits_more_than_limit"),
    topic: "test-zulip / main",
    content: `Yuro Itaki [pushed](${compare("51515957669f93c543df09f8f3e7f47c3613c879", "b0ce2f2009c3c87dbefadf61d7eb2c0697a6f369")}) 50 commits to branch main.\n\n${`${README}\n`.repeat(20)}[and 30 more commit(s)]`,
  },
  {
    name: "branch removed",
    payload: F("code_push__remove_branch"),
    topic: "test-zulip / dev",
    content: `Yuro Itaki [pushed](${compare(R, ZERO)}) the branch dev.`,
  },
  {
    name: "pull request created",
    payload: F("code_pull_request__opened"),
    topic: "test-zulip / PR #1 Add PR request",
    content: `Yuro Itaki created [PR #1 Add PR request](${WEB}/pullrequest/1) from \`dev\` to \`main\`:\n\n~~~ quote\nAdd PR request\n~~~`,
  },
  {
    name: "pull request created without description",
    payload: F("code_pull_request__opened_without_description"),
    topic: "test-zulip / PR #2 Raised 2nd PR!",
    content: `Yuro Itaki created [PR #2 Raised 2nd PR!](${WEB}/pullrequest/2) from \`stg\` to \`main\`.`,
  },
  {
    name: "pull request merged",
    payload: F("code_pull_request__merged"),
    topic: "test-zulip / PR #1 Add PR request",
    content: `Yuro Itaki merged [PR #1 Add PR request](${WEB}/pullrequest/1) from \`dev\` to \`main\`.`,
  },
  { name: "pull request merge only attempted posts nothing", payload: F("code_pull_request__merge_attempted"), ignored: true },
  {
    name: "pull request updated",
    payload: F("code_pull_request__updated"),
    topic: "test-zulip / PR #2 Raised 2nd PR!",
    content: `Yuro Itaki updated [PR #2 Raised 2nd PR!](${WEB}/pullrequest/2)\n\n~~~ quote\nYuro Itaki updated the source branch of [pull request 2](${WEB}/pullrequest/2) (Raised 2nd PR!) in [test-zulip](${WEB}/)\r\nRaised 2nd PR!\r\n\n~~~`,
  },
  { name: "an event Zulip does not post is unsupported", payload: F("workitem_created"), ignored: { unsupportedEvent: "workitem.created" } },
  {
    name: "as in Zulip, only_events does not filter (no event type is given)",
    payload: F("code_push"),
    query: { only_events: '["git.pullrequest.created"]' },
    topic: "test-zulip / main",
    content: PUSH,
  },
];

describe("azuredevops", () => {
  const h = useWebhookHarness();
  itPosts(h, "azuredevops", cases);

  it("a payload missing a field Zulip reads is a 400, nothing posted", async () => {
    const before = (await h.newest())?.id ?? 0;
    const payload = structuredClone(F("code_push")) as { resource: Record<string, unknown> };
    delete payload.resource.pushedBy;
    const res = await h.post("azuredevops", payload);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: "error", msg: "payload['resource']['pushedBy'] is missing" });
    expect(await h.since(before)).toEqual([]);
  });
});
