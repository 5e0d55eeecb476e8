import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness, type WebhookCase } from "./support.js";

/** Gitea, as Zulip's zerver/webhooks/gitea/tests.py: Gogs' texts, Gitea's pull requests, X-Gitea-Event. */
const T = "https://gitea.example.com/ada/engine";
const COMPARE = `${T}/compare/21138d2ca0ce18f8e037696fdbe1b3f0c211f630...2ec0c971d04723523aa20f2b378f8b419b47d4ec`;
const PUSHED = `ada [pushed](${COMPARE}) 1 commit to branch main.\n\n* Tune the mill ([2ec0c971d04](${T}/commit/2ec0c971d04723523aa20f2b378f8b419b47d4ec))`;
const PR = `[PR #4](${T}/pulls/4)`;
const PR_TOPIC = "engine / PR #2001 Dry the cards";
const ISSUE = `[issue #3](${T}/issues/3)`;
const ISSUE_TOPIC = "engine / issue #3 Card reader jams";
const CHARLES = { id: 22, login: "cbabbage", username: "cbabbage", full_name: "Charles Babbage" };

const gitea = (event: string) => ({ "X-Gitea-Event": event });

function variant(name: string, edit: (payload: any) => void): unknown {
  const payload = structuredClone(fixture("gitea", name));
  edit(payload);
  return payload;
}
const pr = (edit: (p: any) => void) => variant("pull_request", edit);

const cases: WebhookCase[] = [
  { name: "push", payload: fixture("gitea", "push"), headers: gitea("push"), topic: "engine / main", content: PUSHED },
  {
    name: "push to a branch the URL leaves out",
    payload: fixture("gitea", "push"),
    headers: gitea("push"),
    query: { branches: "changes,development" },
    ignored: true,
  },
  {
    name: "branch created",
    payload: fixture("gitea", "create"),
    headers: gitea("create"),
    topic: "engine / card-dryer",
    content: `ada created [card-dryer](${T}/src/card-dryer) branch.`,
  },
  {
    name: "pull request opened",
    payload: fixture("gitea", "pull_request"),
    headers: gitea("pull_request"),
    topic: PR_TOPIC,
    content: `ada opened ${PR} from \`card-dryer\` to \`main\`.`,
  },
  {
    name: "pull request opened, with the URL's topic",
    payload: fixture("gitea", "pull_request"),
    headers: gitea("pull_request"),
    query: { topic: "notifications" },
    topic: "notifications",
    content: `ada opened [PR #4 Dry the cards](${T}/pulls/4) from \`card-dryer\` to \`main\`.`,
  },
  {
    name: "pull request merged",
    payload: pr((p) => {
      p.action = "closed";
      p.pull_request.merged = true;
      p.pull_request.merged_by = { ...p.sender, ...CHARLES };
    }),
    headers: gitea("pull_request"),
    topic: PR_TOPIC,
    content: `cbabbage merged ${PR} from \`card-dryer\` to \`main\`.`,
  },
  { name: "pull request edited", payload: pr((p) => (p.action = "edited")), headers: gitea("pull_request"), topic: PR_TOPIC, content: `ada edited ${PR}.` },
  {
    name: "pull request closed by someone else than its author",
    payload: pr((p) => {
      p.action = "closed";
      p.sender = { ...p.sender, ...CHARLES };
    }),
    headers: gitea("pull_request"),
    topic: PR_TOPIC,
    content: `cbabbage closed ${PR} from \`card-dryer\` to \`main\`.`,
  },
  {
    name: "pull request assigned",
    payload: pr((p) => {
      p.action = "assigned";
      p.pull_request.assignee = { ...p.sender, ...CHARLES };
    }),
    headers: gitea("pull_request"),
    topic: PR_TOPIC,
    content: `ada assigned cbabbage to ${PR} from \`card-dryer\` to \`main\` (assigned to cbabbage).`,
  },
  {
    name: "pull request reopened, assigned",
    payload: pr((p) => {
      p.action = "reopened";
      p.pull_request.assignee = { ...p.sender, ...CHARLES };
    }),
    headers: gitea("pull_request"),
    topic: PR_TOPIC,
    content: `ada reopened ${PR} from \`card-dryer\` to \`main\` (assigned to cbabbage).`,
  },
  {
    name: "issue opened",
    payload: fixture("gitea", "issues"),
    headers: gitea("issues"),
    topic: ISSUE_TOPIC,
    content: `ada opened ${ISSUE}:\n\n~~~ quote\nStops on wet cards\n~~~`,
  },
  {
    name: "issue comment",
    payload: fixture("gitea", "issue_comment"),
    headers: gitea("issue_comment"),
    topic: ISSUE_TOPIC,
    content: `ada [commented](${T}/issues/3#issuecomment-24400) on ${ISSUE}:\n\n~~~ quote\nSame here\n~~~`,
  },
  {
    name: "comment on a pull request reads as an issue comment",
    payload: variant("issue_comment", (p) => (p.comment.html_url = `${T}/pulls/3/files#issuecomment-24400`)),
    headers: gitea("issue_comment"),
    topic: ISSUE_TOPIC,
    content: `ada [commented](${T}/pulls/3/files#issuecomment-24400) on ${ISSUE}:\n\n~~~ quote\nSame here\n~~~`,
  },
  {
    name: "release published",
    payload: fixture("gitea", "release"),
    headers: gitea("release"),
    topic: "engine / v1.0 First engine",
    content: `ada published release [First engine](${T}) for tag v1.0.`,
  },
  {
    name: "exclude_events leaves out issue comments",
    payload: fixture("gitea", "issue_comment"),
    headers: gitea("issue_comment"),
    query: { exclude_events: JSON.stringify(["issue_*"]) },
    ignored: true,
  },
  { name: "a wiki event is not posted", payload: fixture("gitea", "create"), headers: gitea("wiki"), ignored: { unsupportedEvent: "wiki" } },
];

describe("Gitea webhook", () => {
  const h = useWebhookHarness();
  itPosts(h, "gitea", cases);

  it("a pull request without its assignee field is a 400, and posts nothing", async () => {
    const before = (await h.newest())?.id ?? 0;
    const res = await h.post(
      "gitea",
      pr((p) => delete p.pull_request.assignee),
      { headers: gitea("pull_request") },
    );
    expect(res).toMatchObject({ status: 400, body: { result: "error", msg: "payload['pull_request']['assignee'] is missing" } });
    expect(await h.since(before)).toEqual([]);
  });

  it("the Gogs header is not Gitea's", async () => {
    const res = await h.post("gitea", fixture("gitea", "push"), { headers: { "X-Gogs-Event": "push" } });
    expect(res).toMatchObject({ status: 400, body: { result: "error", code: "MISSING_HTTP_EVENT_HEADER" } });
  });
});
