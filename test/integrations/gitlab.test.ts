import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness, type WebhookCase } from "./support.js";

/**
 * GitLab, as Zulip's zerver/webhooks/gitlab/tests.py: each hook (X-Gitlab-Event) and action
 * posts Zulip's topic and text. Variants of a fixture change the fields an event differs by.
 */
const H = "https://gitlab.example.com/ada/parley-demo";
const SHA = "da1560886d4f094c3e6c9ef40349f7d38b5d27d7";
const COMPARE = `${H}/-/compare/95790bf891e76fee5e1747ab589903a6a1f80f22...${SHA}`;
const COMMITS =
  `* Describe the analytical engine ([b6568db1bc1](${H}/-/commit/b6568db1bc1dcd7f8b4d5a946b0b91f9dacd7327))\n` +
  `* Fix the punched card reader ([da1560886d4](${H}/-/commit/${SHA}))`;
const PUSHED = `Ada Lovelace [pushed](${COMPARE}) 2 commits to branch main.\n\n${COMMITS}`;
const ISSUE_TOPIC = "parley-demo / issue #3 Card reader jams on wet cards";
const MR_TOPIC = "parley-demo / MR #5 Dry the cards before reading";
const MR = `[MR #5](${H}/-/merge_requests/5)`;
const PROJECT_LINK = `[[parley-demo](${H})]`;

const gitlab = (event: string) => ({ "X-Gitlab-Event": event });

/** A copy of a fixture, changed by `edit`. */
function variant(name: string, edit: (payload: any) => void): unknown {
  const payload = structuredClone(fixture("gitlab", name));
  edit(payload);
  return payload;
}
const issueAction = (action: string) => variant("issue_hook", (p) => (p.object_attributes.action = action));
const mrAction = (action: string, edit: (p: any) => void = () => {}) =>
  variant("merge_request_hook", (p) => {
    p.object_attributes.action = action;
    edit(p);
  });

const push: WebhookCase[] = [
  { name: "push", payload: fixture("gitlab", "push_hook"), headers: gitlab("Push Hook"), topic: "parley-demo / main", content: PUSHED },
  {
    name: "push with the URL's topic names the project",
    payload: fixture("gitlab", "push_hook"),
    headers: gitlab("Push Hook"),
    query: { topic: "Specific topic" },
    topic: "Specific topic",
    content: `${PROJECT_LINK} ${PUSHED}`,
  },
  {
    name: "push by several committers",
    payload: variant("push_hook", (p) => (p.commits[0].author.name = "Charles Babbage")),
    headers: gitlab("Push Hook"),
    topic: "parley-demo / main",
    content: `Ada Lovelace [pushed](${COMPARE}) 2 commits to branch main. Commits by Ada Lovelace (1) and Charles Babbage (1).\n\n${COMMITS}`,
  },
  {
    name: "push of more commits than are listed",
    payload: variant("push_hook", (p) => (p.commits = Array.from({ length: 25 }, () => p.commits[1]))),
    headers: gitlab("Push Hook"),
    topic: "parley-demo / main",
    content:
      `Ada Lovelace [pushed](${COMPARE}) 25 commits to branch main.\n\n` +
      `* Fix the punched card reader ([da1560886d4](${H}/-/commit/${SHA}))\n`.repeat(20) +
      "[and 5 more commit(s)]",
  },
  {
    name: "push to a branch the URL lists",
    payload: fixture("gitlab", "push_hook"),
    headers: gitlab("Push Hook"),
    query: { branches: "dev,main" },
    topic: "parley-demo / main",
    content: PUSHED,
  },
  {
    name: "push to a branch the URL leaves out",
    payload: fixture("gitlab", "push_hook"),
    headers: gitlab("Push Hook"),
    query: { branches: "dev" },
    ignored: true,
  },
  {
    name: "push of a new branch without commits",
    payload: variant("push_hook", (p) => {
      p.before = "0000000000000000000000000000000000000000";
      p.commits = [];
    }),
    headers: gitlab("Push Hook"),
    topic: "parley-demo / main",
    content: `Ada Lovelace [pushed](${H}/-/compare/0000000000000000000000000000000000000000...${SHA}) the branch main.`,
  },
  {
    name: "branch deleted",
    payload: variant("push_hook", (p) => {
      p.after = "0000000000000000000000000000000000000000";
      p.commits = [];
    }),
    headers: gitlab("Push Hook"),
    topic: "parley-demo / main",
    content: "Ada Lovelace deleted branch main.",
  },
  {
    name: "tag pushed",
    payload: fixture("gitlab", "tag_push_hook"),
    headers: gitlab("Tag Push Hook"),
    topic: "parley-demo",
    content: "Ada Lovelace pushed tag v1.0.0.",
  },
  {
    name: "tag removed",
    payload: variant("tag_push_hook", (p) => (p.checkout_sha = null)),
    headers: gitlab("Tag Push Hook"),
    topic: "parley-demo",
    content: "Ada Lovelace removed tag v1.0.0.",
  },
  {
    name: "test hook",
    payload: fixture("gitlab", "push_hook"),
    headers: gitlab("Test Hook"),
    topic: "parley-demo",
    content: "Webhook for **parley-demo** has been configured successfully! :tada:",
  },
  {
    name: "system hook push",
    payload: fixture("gitlab", "push_hook"),
    headers: gitlab("System Hook"),
    topic: "parley-demo / main",
    content: PUSHED,
  },
];

const ISSUE_CREATED = `Ada Lovelace created [issue #3](${H}/-/issues/3) (assigned to Ada Lovelace and Charles Babbage):\n\n~~~ quote\nThe reader stops after a few cards.\n~~~`;

const issues: WebhookCase[] = [
  {
    name: "issue opened, hidden comment left out",
    payload: fixture("gitlab", "issue_hook"),
    headers: gitlab("Issue Hook"),
    topic: ISSUE_TOPIC,
    content: ISSUE_CREATED,
  },
  {
    name: "issue opened, with the URL's topic",
    payload: fixture("gitlab", "issue_hook"),
    headers: gitlab("Issue Hook"),
    query: { topic: "notifications" },
    topic: "notifications",
    content: `${PROJECT_LINK} Ada Lovelace created [issue #3 Card reader jams on wet cards](${H}/-/issues/3) (assigned to Ada Lovelace and Charles Babbage):\n\n~~~ quote\nThe reader stops after a few cards.\n~~~`,
  },
  {
    name: "issue opened without description or assignees",
    payload: variant("issue_hook", (p) => {
      p.object_attributes.description = null;
      p.assignees = [];
    }),
    headers: gitlab("Issue Hook"),
    topic: ISSUE_TOPIC,
    content: `Ada Lovelace created [issue #3](${H}/-/issues/3).`,
  },
  {
    name: "issue opened with one assignee",
    payload: variant("issue_hook", (p) => {
      delete p.assignees;
      p.assignee = p.user;
      p.object_attributes.description = "Stops.";
    }),
    headers: gitlab("Issue Hook"),
    topic: ISSUE_TOPIC,
    content: `Ada Lovelace created [issue #3](${H}/-/issues/3) (assigned to Ada Lovelace):\n\n~~~ quote\nStops.\n~~~`,
  },
  {
    name: "confidential issue opened",
    payload: fixture("gitlab", "issue_hook"),
    headers: gitlab("Confidential Issue Hook"),
    topic: ISSUE_TOPIC,
    content: ISSUE_CREATED,
  },
  {
    name: "issue updated",
    payload: issueAction("update"),
    headers: gitlab("Issue Hook"),
    topic: ISSUE_TOPIC,
    content: `Ada Lovelace updated [issue #3](${H}/-/issues/3).`,
  },
  {
    name: "issue updated, with the URL's topic",
    payload: issueAction("update"),
    headers: gitlab("Issue Hook"),
    query: { topic: "notifications" },
    topic: "notifications",
    content: `${PROJECT_LINK} Ada Lovelace updated [issue #3 Card reader jams on wet cards](${H}/-/issues/3).`,
  },
  {
    name: "issue closed",
    payload: issueAction("close"),
    headers: gitlab("Issue Hook"),
    topic: ISSUE_TOPIC,
    content: `Ada Lovelace closed [issue #3](${H}/-/issues/3).`,
  },
  {
    name: "issue reopened",
    payload: issueAction("reopen"),
    headers: gitlab("Issue Hook"),
    topic: ISSUE_TOPIC,
    content: `Ada Lovelace reopened [issue #3](${H}/-/issues/3).`,
  },
  {
    name: "confidential issue closed",
    payload: issueAction("close"),
    headers: gitlab("Confidential Issue Hook"),
    topic: ISSUE_TOPIC,
    content: `Ada Lovelace closed [issue #3](${H}/-/issues/3).`,
  },
  {
    name: "confidential issue updated",
    payload: issueAction("update"),
    headers: gitlab("Confidential Issue Hook"),
    topic: ISSUE_TOPIC,
    content: `Ada Lovelace updated [issue #3](${H}/-/issues/3).`,
  },
  {
    name: "confidential issue reopened",
    payload: issueAction("reopen"),
    headers: gitlab("Confidential Issue Hook"),
    topic: ISSUE_TOPIC,
    content: `Ada Lovelace reopened [issue #3](${H}/-/issues/3).`,
  },
];

const MR_NOTE = `Charles Babbage [commented](${H}/-/merge_requests/5#note_1301) on ${MR}:\n\n~~~ quote\nCould the dryer run only when needed?\n~~~`;
const ISSUE_NOTE = `Charles Babbage [commented](${H}/-/issues/3#note_1302) on [issue #3](${H}/-/issues/3):\n\n~~~ quote\nSeen it too, with damp cards.\n~~~`;
const SNIPPET_NOTE = `Ada Lovelace [commented](${H}/-/snippets/53#note_1303) on [snippet #53](${H}/-/snippets/53):\n\n~~~ quote\nUpdated the table.\n~~~`;
const DESIGN = `${H}/-/issues/3/designs/reader-diagram.png`;
const DESIGN_NOTE = `Charles Babbage [commented](${DESIGN}#note_1304) on design [reader-diagram.png](${DESIGN}):\n\n~~~ quote\nThe arrow should point left.\n~~~`;

const notes: WebhookCase[] = [
  {
    name: "comment on a commit",
    payload: fixture("gitlab", "note_hook__commit_note"),
    headers: gitlab("Note Hook"),
    topic: "parley-demo",
    content: `Charles Babbage [commented](${H}/-/commit/${SHA}#note_1244) on [da1560886d4](${H}/-/commit/${SHA}):\n~~~ quote\nNice catch on the reader.\n~~~`,
  },
  {
    name: "comment on a merge request",
    payload: fixture("gitlab", "note_hook__merge_request_note"),
    headers: gitlab("Note Hook"),
    topic: MR_TOPIC,
    content: MR_NOTE,
  },
  {
    name: "comment on a merge request, without its title in the topic",
    payload: fixture("gitlab", "note_hook__merge_request_note"),
    headers: gitlab("Note Hook"),
    query: { use_merge_request_title: "false" },
    topic: "parley-demo / MR #5",
    content: MR_NOTE,
  },
  {
    name: "comment on a merge request, with the URL's topic",
    payload: fixture("gitlab", "note_hook__merge_request_note"),
    headers: gitlab("Note Hook"),
    query: { topic: "notifications" },
    topic: "notifications",
    content: `${PROJECT_LINK} Charles Babbage [commented](${H}/-/merge_requests/5#note_1301) on [MR #5 Dry the cards before reading](${H}/-/merge_requests/5):\n\n~~~ quote\nCould the dryer run only when needed?\n~~~`,
  },
  { name: "comment on an issue", payload: fixture("gitlab", "note_hook__issue_note"), headers: gitlab("Note Hook"), topic: ISSUE_TOPIC, content: ISSUE_NOTE },
  {
    name: "comment on a confidential issue",
    payload: fixture("gitlab", "note_hook__issue_note"),
    headers: gitlab("Confidential Note Hook"),
    topic: ISSUE_TOPIC,
    content: ISSUE_NOTE,
  },
  {
    name: "comment on a snippet",
    payload: fixture("gitlab", "note_hook__snippet_note"),
    headers: gitlab("Note Hook"),
    topic: "parley-demo / snippet #53 Bernoulli numbers table",
    content: SNIPPET_NOTE,
  },
  {
    name: "comment on a snippet, before GitLab 16.1 sent its URL",
    payload: variant("note_hook__snippet_note", (p) => delete p.snippet.url),
    headers: gitlab("Note Hook"),
    topic: "parley-demo / snippet #53 Bernoulli numbers table",
    content: SNIPPET_NOTE,
  },
  {
    name: "comment on a design",
    payload: fixture("gitlab", "note_hook__design_note"),
    headers: gitlab("Note Hook"),
    topic: "parley-demo / design reader-diagram.png",
    content: DESIGN_NOTE,
  },
  {
    name: "comment on a design of a confidential issue",
    payload: fixture("gitlab", "note_hook__design_note"),
    headers: gitlab("Confidential Note Hook"),
    topic: "parley-demo / design reader-diagram.png",
    content: DESIGN_NOTE,
  },
];

const MR_BODY = "\n\n~~~ quote\nAdds a dryer before the reader.\n~~~";

const mergeRequests: WebhookCase[] = [
  {
    name: "merge request opened",
    payload: fixture("gitlab", "merge_request_hook"),
    headers: gitlab("Merge Request Hook"),
    topic: MR_TOPIC,
    content: `Ada Lovelace created ${MR} from \`card-dryer\` to \`main\` (assigned to Charles Babbage):${MR_BODY}`,
  },
  {
    name: "merge request opened without description or assignees",
    payload: mrAction("open", (p) => {
      p.object_attributes.description = null;
      p.assignees = [];
    }),
    headers: gitlab("Merge Request Hook"),
    topic: MR_TOPIC,
    content: `Ada Lovelace created ${MR} from \`card-dryer\` to \`main\`.`,
  },
  {
    name: "merge request opened, through a system hook",
    payload: fixture("gitlab", "merge_request_hook"),
    headers: gitlab("System Hook"),
    topic: MR_TOPIC,
    content: `Ada Lovelace created ${MR} from \`card-dryer\` to \`main\` (assigned to Charles Babbage):${MR_BODY}`,
  },
  {
    name: "merge request updated",
    payload: mrAction("update"),
    headers: gitlab("Merge Request Hook"),
    topic: MR_TOPIC,
    content: `Ada Lovelace updated ${MR} (assigned to Charles Babbage):${MR_BODY}`,
  },
  {
    name: "commits added to a merge request",
    payload: mrAction("update", (p) => (p.object_attributes.oldrev = "95790bf891e76fee5e1747ab589903a6a1f80f22")),
    headers: gitlab("Merge Request Hook"),
    topic: MR_TOPIC,
    content: `Ada Lovelace added commit(s) to ${MR}.`,
  },
  {
    name: "merge request merged",
    payload: mrAction("merge"),
    headers: gitlab("Merge Request Hook"),
    topic: MR_TOPIC,
    content: `Ada Lovelace merged ${MR} from \`card-dryer\` to \`main\`.`,
  },
  { name: "merge request closed", payload: mrAction("close"), headers: gitlab("Merge Request Hook"), topic: MR_TOPIC, content: `Ada Lovelace closed ${MR}.` },
  {
    name: "merge request closed, without its title in the topic",
    payload: mrAction("close"),
    headers: gitlab("Merge Request Hook"),
    query: { use_merge_request_title: "false" },
    topic: "parley-demo / MR #5",
    content: `Ada Lovelace closed ${MR}.`,
  },
  {
    name: "merge request closed, with the URL's topic",
    payload: mrAction("close"),
    headers: gitlab("Merge Request Hook"),
    query: { topic: "notifications" },
    topic: "notifications",
    content: `${PROJECT_LINK} Ada Lovelace closed [MR #5 Dry the cards before reading](${H}/-/merge_requests/5).`,
  },
  {
    name: "merge request reopened",
    payload: mrAction("reopen"),
    headers: gitlab("Merge Request Hook"),
    topic: MR_TOPIC,
    content: `Ada Lovelace reopened ${MR}.`,
  },
  {
    name: "merge request approved",
    payload: mrAction("approved"),
    headers: gitlab("Merge Request Hook"),
    topic: MR_TOPIC,
    content: `Ada Lovelace approved ${MR}.`,
  },
  {
    name: "merge request unapproved",
    payload: mrAction("unapproved"),
    headers: gitlab("Merge Request Hook"),
    topic: MR_TOPIC,
    content: `Ada Lovelace unapproved ${MR}.`,
  },
  {
    name: "merge request approval (one of several required)",
    payload: mrAction("approval"),
    headers: gitlab("Merge Request Hook"),
    topic: MR_TOPIC,
    content: `Ada Lovelace added their approval for ${MR}.`,
  },
  {
    name: "merge request unapproval",
    payload: mrAction("unapproval"),
    headers: gitlab("Merge Request Hook"),
    topic: MR_TOPIC,
    content: `Ada Lovelace removed their approval for ${MR}.`,
  },
  {
    name: "merge request action Zulip does not post",
    payload: mrAction("unknown_action"),
    headers: gitlab("Merge Request Hook"),
    ignored: { unsupportedEvent: "Merge Request Hook unknown_action" },
  },
  {
    name: "only_events leaves out merge requests opened",
    payload: fixture("gitlab", "merge_request_hook"),
    headers: gitlab("Merge Request Hook"),
    query: { only_events: JSON.stringify(["Merge Request Hook merge", "Push Hook"]) },
    ignored: true,
  },
  {
    name: "exclude_events leaves out every merge request event",
    payload: mrAction("merge"),
    headers: gitlab("Merge Request Hook"),
    query: { exclude_events: JSON.stringify(["Merge Request Hook *"]) },
    ignored: true,
  },
];

const PIPELINE_BUILDS =
  `* [unit-tests](${H}/-/jobs/9002) - success\n` +
  `* [compile](${H}/-/jobs/9001) - success\n` +
  `  * built artifact: *engine.zip* [[Browse](${H}/-/jobs/9001/artifacts/browse)|[Download](${H}/-/jobs/9001/artifacts/download)].`;
const pipeline = (status: string) => variant("pipeline_hook", (p) => (p.object_attributes.status = status));
const job = (status: string) => variant("job_hook", (p) => (p.build_status = status));

const ci: WebhookCase[] = [
  {
    name: "wiki page created",
    payload: fixture("gitlab", "wiki_page_hook"),
    headers: gitlab("Wiki Page Hook"),
    topic: "parley-demo",
    content: `Ada Lovelace created [wiki page "Operating notes"](${H}/-/wikis/operating-notes).`,
  },
  {
    name: "wiki page updated",
    payload: variant("wiki_page_hook", (p) => (p.object_attributes.action = "update")),
    headers: gitlab("Wiki Page Hook"),
    topic: "parley-demo",
    content: `Ada Lovelace updated [wiki page "Operating notes"](${H}/-/wikis/operating-notes).`,
  },
  {
    name: "job created",
    payload: fixture("gitlab", "job_hook"),
    headers: gitlab("Job Hook"),
    topic: "parley-demo / main",
    content: "Build unit-tests from test stage was created.",
  },
  {
    name: "job started",
    payload: job("running"),
    headers: gitlab("Job Hook"),
    topic: "parley-demo / main",
    content: "Build unit-tests from test stage started.",
  },
  {
    name: "job succeeded",
    payload: job("success"),
    headers: gitlab("Job Hook"),
    topic: "parley-demo / main",
    content: "Build unit-tests from test stage changed status to success.",
  },
  {
    name: "build (the hook's former name) failed",
    payload: job("failed"),
    headers: gitlab("Build Hook"),
    topic: "parley-demo / main",
    content: "Build unit-tests from test stage changed status to failed.",
  },
  {
    name: "job, with the URL's topic (no project section)",
    payload: fixture("gitlab", "job_hook"),
    headers: gitlab("Job Hook"),
    query: { topic: "provided topic" },
    topic: "provided topic",
    content: `${PROJECT_LINK} Build unit-tests from test stage was created.`,
  },
  {
    name: "pipeline succeeded, with artifacts",
    payload: fixture("gitlab", "pipeline_hook"),
    headers: gitlab("Pipeline Hook"),
    topic: "parley-demo / main",
    content: `[Pipeline (7001)](${H}/-/pipelines/7001) changed status to success with build(s):\n${PIPELINE_BUILDS}`,
  },
  {
    name: "pipeline created",
    payload: pipeline("pending"),
    headers: gitlab("Pipeline Hook"),
    topic: "parley-demo / main",
    content: `[Pipeline (7001)](${H}/-/pipelines/7001) was created with build(s):\n${PIPELINE_BUILDS}`,
  },
  {
    name: "pipeline started",
    payload: pipeline("running"),
    headers: gitlab("Pipeline Hook"),
    topic: "parley-demo / main",
    content: `[Pipeline (7001)](${H}/-/pipelines/7001) started with build(s):\n${PIPELINE_BUILDS}`,
  },
];

const RELEASE = `[Engine 1.0](${H}/-/releases/v1.0.0)`;
const release = (action: string, edit: (p: any) => void = () => {}) =>
  variant("release_hook", (p) => {
    p.action = action;
    edit(p);
  });
const deployment = (status: string, edit: (p: any) => void = () => {}) =>
  variant("deployment_hook", (p) => {
    p.status = status;
    edit(p);
  });
const GROUP = { group_name: "Engine Makers", group_path: "engine-makers", group_id: 9 };

const others: WebhookCase[] = [
  {
    name: "release created",
    payload: fixture("gitlab", "release_hook"),
    headers: gitlab("Release Hook"),
    topic: "parley-demo",
    content: `Release ${RELEASE} for tag v1.0.0 was created.\n~~~ quote\nReads damp cards.\n~~~`,
  },
  {
    name: "release updated, without description",
    payload: release("update", (p) => delete p.description),
    headers: gitlab("Release Hook"),
    topic: "parley-demo",
    content: `Release ${RELEASE} for tag v1.0.0 was updated.`,
  },
  {
    name: "release deleted",
    payload: release("delete"),
    headers: gitlab("Release Hook"),
    topic: "parley-demo",
    content: "Release Engine 1.0 for tag v1.0.0 was deleted.",
  },
  {
    name: "feature flag activated",
    payload: fixture("gitlab", "feature_flag_hook"),
    headers: gitlab("Feature Flag Hook"),
    topic: "parley-demo",
    content: `ada activated the feature flag [damp-card-mode](${H}/-/feature_flags).`,
  },
  {
    name: "feature flag deactivated",
    payload: variant("feature_flag_hook", (p) => (p.object_attributes.active = false)),
    headers: gitlab("Feature Flag Hook"),
    topic: "parley-demo",
    content: `ada deactivated the feature flag [damp-card-mode](${H}/-/feature_flags).`,
  },
  {
    name: "project access token expiring",
    payload: fixture("gitlab", "resource_access_token_hook"),
    headers: gitlab("Resource Access Token Hook"),
    topic: "parley-demo",
    content: `The access token [Release bot](${H}/-/settings/access_tokens) will expire on Dec 06, 2026.`,
  },
  {
    name: "group access token expiring",
    payload: variant("resource_access_token_hook", (p) => {
      delete p.project;
      delete p.project_id;
      p.group = GROUP;
      p.object_attributes.expires_at = "2027-01-09";
    }),
    headers: gitlab("Resource Access Token Hook"),
    topic: "Engine Makers",
    content: "The access token [Release bot](https://gitlab.com/groups/engine-makers/-/settings/access_tokens) will expire on Jan 09, 2027.",
  },
  {
    name: "deployment started",
    payload: fixture("gitlab", "deployment_hook"),
    headers: gitlab("Deployment Hook"),
    topic: "parley-demo / production",
    content: `[Ada Lovelace](https://gitlab.example.com/ada) started a new [deployment](${H}/-/jobs/9010):\n> [da15608](${H}/-/commit/${SHA}) Fix the punched card reader`,
  },
  {
    name: "deployment succeeded",
    payload: deployment("success"),
    headers: gitlab("Deployment Hook"),
    topic: "parley-demo / production",
    content: `The [deployment](${H}/-/jobs/9010) was successful.`,
  },
  {
    name: "deployment failed",
    payload: deployment("failed"),
    headers: gitlab("Deployment Hook"),
    topic: "parley-demo / production",
    content: `The [deployment](${H}/-/jobs/9010) failed.`,
  },
  {
    name: "deployment canceled, without a job",
    payload: deployment("canceled", (p) => (p.deployable_url = "")),
    headers: gitlab("Deployment Hook"),
    topic: "parley-demo / production",
    content: "The deployment was canceled.",
  },
  {
    name: "deployment status without a text",
    payload: deployment("blocked"),
    headers: gitlab("Deployment Hook"),
    ignored: { unsupportedEvent: "Deployment Hook blocked" },
  },
  {
    name: "system hook of a kind Zulip does not post",
    payload: fixture("gitlab", "system_hook__project_create"),
    headers: gitlab("System Hook"),
    ignored: { unsupportedEvent: "Project Create Hook" },
  },
  { name: "emoji hook is not posted", payload: fixture("gitlab", "emoji_hook"), headers: gitlab("Emoji Hook"), ignored: { unsupportedEvent: "Emoji Hook" } },
];

describe("GitLab webhook", () => {
  const h = useWebhookHarness();
  describe("pushes and tags", () => itPosts(h, "gitlab", push));
  describe("issues", () => itPosts(h, "gitlab", issues));
  describe("comments", () => itPosts(h, "gitlab", notes));
  describe("merge requests", () => itPosts(h, "gitlab", mergeRequests));
  describe("wiki, jobs and pipelines", () => itPosts(h, "gitlab", ci));
  describe("releases, feature flags, access tokens, deployments", () => itPosts(h, "gitlab", others));

  it("a push without user_name is a 400 naming the field, and posts nothing", async () => {
    const before = (await h.newest())?.id ?? 0;
    const res = await h.post(
      "gitlab",
      variant("push_hook", (p) => delete p.user_name),
      { headers: gitlab("Push Hook") },
    );
    expect(res).toMatchObject({ status: 400, body: { result: "error", msg: "payload['user_name'] is missing" } });
    expect(await h.since(before)).toEqual([]);
  });

  it("without the X-Gitlab-Event header, a 400", async () => {
    const res = await h.post("gitlab", fixture("gitlab", "push_hook"));
    expect(res).toMatchObject({ status: 400, body: { result: "error", code: "MISSING_HTTP_EVENT_HEADER" } });
  });

  it("use_merge_request_title must be a JSON boolean", async () => {
    const res = await h.post("gitlab", fixture("gitlab", "merge_request_hook"), {
      headers: gitlab("Merge Request Hook"),
      query: { use_merge_request_title: "nope" },
    });
    expect(res).toMatchObject({ status: 400, body: { result: "error" } });
  });
});
