import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness, type WebhookCase } from "./support.js";

/** Gogs, as Zulip's zerver/webhooks/gogs/tests.py: the event in X-Gogs-Event. */
const G = "https://gogs.example.com/ada/engine";
const COMPARE = `${G}/compare/479e6b772b7fba19412457483f50b201286d0103...d8fce16c72a2ff56a5afc8a08645a6ce45491794`;
const MILL = `* Add the mill ([c5feabde2d8](${G}/commit/c5feabde2d8cd023215af4d2ceeb7a64839fc428))`;
const STORE = `* Add the store ([d8fce16c72a](${G}/commit/d8fce16c72a2ff56a5afc8a08645a6ce45491794))`;
const PUSHED = `ada [pushed](${COMPARE}) 2 commits to branch master. Commits by Charles (1) and ada (1).\n\n${MILL}\n${STORE}`;
const PR = `[PR #2](${G}/pulls/2)`;
const PR_TOPIC = "engine / PR #1349 Dry the cards";
const ISSUE = `[issue #3](${G}/issues/3)`;
const ISSUE_TOPIC = "engine / issue #3 Card reader jams";

const gogs = (event: string) => ({ "X-Gogs-Event": event });

function variant(name: string, edit: (payload: any) => void): unknown {
  const payload = structuredClone(fixture("gogs", name));
  edit(payload);
  return payload;
}
const pr = (edit: (p: any) => void) => variant("pull_request", edit);
const issues = (edit: (p: any) => void) => variant("issues", edit);

const cases: WebhookCase[] = [
  { name: "push by two committers", payload: fixture("gogs", "push"), headers: gogs("push"), topic: "engine / master", content: PUSHED },
  {
    name: "push by its pusher alone",
    payload: variant("push", (p) => (p.commits = [p.commits[1]])),
    headers: gogs("push"),
    topic: "engine / master",
    content: `ada [pushed](${COMPARE}) 1 commit to branch master.\n\n${STORE}`,
  },
  {
    name: "push of more commits than are listed",
    payload: variant("push", (p) => (p.commits = Array.from({ length: 30 }, () => p.commits[1]))),
    headers: gogs("push"),
    topic: "engine / master",
    content: `ada [pushed](${COMPARE}) 30 commits to branch master.\n\n${`${STORE}\n`.repeat(20)}[and 10 more commit(s)]`,
  },
  {
    name: "push to a branch the URL lists",
    payload: fixture("gogs", "push"),
    headers: gogs("push"),
    query: { branches: "master,development" },
    topic: "engine / master",
    content: PUSHED,
  },
  {
    name: "push to a branch the URL leaves out",
    payload: fixture("gogs", "push"),
    headers: gogs("push"),
    query: { branches: "changes,development" },
    ignored: true,
  },
  {
    name: "branch created",
    payload: fixture("gogs", "create"),
    headers: gogs("create"),
    topic: "engine / feature-x",
    content: `ada created [feature-x](${G}/src/feature-x) branch.`,
  },
  {
    name: "pull request opened",
    payload: fixture("gogs", "pull_request"),
    headers: gogs("pull_request"),
    topic: PR_TOPIC,
    content: `ada opened ${PR} from \`card-dryer\` to \`master\`.`,
  },
  {
    name: "pull request opened, with the URL's topic",
    payload: fixture("gogs", "pull_request"),
    headers: gogs("pull_request"),
    query: { topic: "notifications" },
    topic: "notifications",
    content: `ada opened [PR #2 Dry the cards](${G}/pulls/2) from \`card-dryer\` to \`master\`.`,
  },
  {
    name: "pull request closed",
    payload: pr((p) => (p.action = "closed")),
    headers: gogs("pull_request"),
    topic: PR_TOPIC,
    content: `ada closed ${PR} from \`card-dryer\` to \`master\`.`,
  },
  {
    name: "pull request merged",
    payload: pr((p) => {
      p.action = "closed";
      p.pull_request.merged = true;
      p.pull_request.merged_by = { ...p.sender, id: 2, login: "cbabbage", username: "cbabbage", full_name: "Charles Babbage" };
    }),
    headers: gogs("pull_request"),
    topic: PR_TOPIC,
    content: `cbabbage merged ${PR} from \`card-dryer\` to \`master\`.`,
  },
  { name: "pull request edited", payload: pr((p) => (p.action = "edited")), headers: gogs("pull_request"), topic: PR_TOPIC, content: `ada edited ${PR}.` },
  {
    name: "pull request assigned",
    payload: pr((p) => {
      p.action = "assigned";
      p.pull_request.assignee = { ...p.sender, id: 2, login: "cbabbage", username: "cbabbage" };
    }),
    headers: gogs("pull_request"),
    topic: PR_TOPIC,
    content: `ada assigned cbabbage to ${PR} from \`card-dryer\` to \`master\`.`,
  },
  {
    name: "pull request synchronized",
    payload: pr((p) => (p.action = "synchronized")),
    headers: gogs("pull_request"),
    topic: PR_TOPIC,
    content: `ada synchronized ${PR} from \`card-dryer\` to \`master\`.`,
  },
  {
    name: "issue opened",
    payload: fixture("gogs", "issues"),
    headers: gogs("issues"),
    topic: ISSUE_TOPIC,
    content: `ada opened ${ISSUE}:\n\n~~~ quote\nStops on wet cards\n~~~`,
  },
  {
    name: "issue opened, with the URL's topic",
    payload: fixture("gogs", "issues"),
    headers: gogs("issues"),
    query: { topic: "notifications" },
    topic: "notifications",
    content: `ada opened [issue #3 Card reader jams](${G}/issues/3):\n\n~~~ quote\nStops on wet cards\n~~~`,
  },
  {
    name: "issue assigned",
    payload: issues((p) => {
      p.action = "assigned";
      p.issue.assignee = { ...p.sender, id: 2, login: "cbabbage", username: "cbabbage" };
    }),
    headers: gogs("issues"),
    topic: ISSUE_TOPIC,
    content: `ada assigned cbabbage to ${ISSUE} (assigned to cbabbage):\n\n~~~ quote\nStops on wet cards\n~~~`,
  },
  {
    name: "issue closed, with an empty body",
    payload: issues((p) => {
      p.action = "closed";
      p.issue.body = "";
    }),
    headers: gogs("issues"),
    topic: ISSUE_TOPIC,
    content: `ada closed ${ISSUE}.`,
  },
  {
    name: "issue comment",
    payload: fixture("gogs", "issue_comment"),
    headers: gogs("issue_comment"),
    topic: ISSUE_TOPIC,
    content: `ada [commented](${G}/issues/3#issuecomment-77) on ${ISSUE}:\n\n~~~ quote\nSame here\n~~~`,
  },
  {
    name: "issue comment edited",
    payload: variant("issue_comment", (p) => (p.action = "edited")),
    headers: gogs("issue_comment"),
    topic: ISSUE_TOPIC,
    content: `ada edited a [comment](${G}/issues/3#issuecomment-77) on ${ISSUE}:\n\n~~~ quote\nSame here\n~~~`,
  },
  {
    name: "release published",
    payload: fixture("gogs", "release"),
    headers: gogs("release"),
    topic: "engine / v1.0 First engine",
    content: `ada published release [First engine](${G}) for tag v1.0.`,
  },
  {
    name: "only_events leaves out issues",
    payload: fixture("gogs", "issues"),
    headers: gogs("issues"),
    query: { only_events: JSON.stringify(["push", "pull_request"]) },
    ignored: true,
  },
  { name: "delete is not posted", payload: fixture("gogs", "delete"), headers: gogs("delete"), ignored: { unsupportedEvent: "delete" } },
];

describe("Gogs webhook", () => {
  const h = useWebhookHarness();
  itPosts(h, "gogs", cases);

  it("a payload without the repository's name is a 400, and posts nothing", async () => {
    const before = (await h.newest())?.id ?? 0;
    const res = await h.post(
      "gogs",
      variant("push", (p) => delete p.repository.name),
      { headers: gogs("push") },
    );
    expect(res).toMatchObject({ status: 400, body: { result: "error", msg: "payload['repository']['name'] is missing" } });
    expect(await h.since(before)).toEqual([]);
  });

  it("without the X-Gogs-Event header, a 400", async () => {
    const res = await h.post("gogs", fixture("gogs", "push"));
    expect(res).toMatchObject({ status: 400, body: { result: "error", code: "MISSING_HTTP_EVENT_HEADER" } });
  });
});
