import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

const tg = (name: string) => fixture("taiga", name);
const U = "[TomaszKolek](https://tree.taiga.io/profile/kolaszek)";
const US = "[Read receipts](https://tree.taiga.io/project/kolaszek-parley/us/7)";
const TASK = "[Write the migration](https://tree.taiga.io/project/kolaszek-parley/task/9)";
const ISSUE = "[Crash on login](https://tree.taiga.io/project/kolaszek-parley/issue/11)";
const SPRINT = "[Sprint 4](https://tree.taiga.io/project/kolaszek-parley/taskboard/sprint-4)";
const EPIC = "[Presence](https://tree.taiga.io/project/kolaszek-parley/epic/1)";

describe("Taiga webhook", () => {
  const h = useWebhookHarness();

  itPosts(h, "taiga", [
    {
      name: "user story created (no permalink: bold)",
      payload: tg("userstory_created"),
      topic: "General",
      content: `${U} created user story **Read receipts**.`,
    },
    {
      name: "user story closed, in its sprint's topic, lines sorted",
      payload: tg("userstory_closed_in_sprint"),
      topic: "Sprint 4",
      content: `${U} changed status of user story ${US} from In progress to Done.\n${U} closed user story ${US}.`,
    },
    { name: "user story assigned", payload: tg("userstory_assigned"), topic: "General", content: `${U} assigned user story ${US} to HanSolo.` },
    { name: "user story unassigned", payload: tg("userstory_unassigned"), topic: "General", content: `${U} unassigned user story ${US}.` },
    {
      name: "user story points and description",
      payload: tg("userstory_points_description"),
      topic: "General",
      content: `${U} changed estimation of user story ${US}.\n${U} updated description of user story ${US}.`,
    },
    {
      name: "task moved to another user story and added to a sprint",
      payload: tg("task_moved"),
      topic: "Sprint 4",
      content: `${U} added task ${TASK} to sprint Sprint 4.\n${U} moved task ${TASK} from user story #7 Read receipts to #8 Typing indicators.`,
    },
    {
      name: "task blocked, with a comment",
      payload: tg("task_blocked_commented"),
      topic: "Sprint 4",
      content: `${U} blocked task ${TASK}.\n${U} commented on task ${TASK}.`,
    },
    {
      name: "issue priority, severity, type and due date changed",
      payload: tg("issue_changed_fields"),
      topic: "General",
      content:
        `${U} changed due date of issue ${ISSUE} from 2026-03-08 to 2026-03-02.\n` +
        `${U} changed priority of issue ${ISSUE} from Normal to High.\n` +
        `${U} changed severity of issue ${ISSUE} from Minor to Critical.\n` +
        `${U} changed type of issue ${ISSUE} from Question to Bug.`,
    },
    { name: "issue renamed", payload: tg("issue_renamed"), topic: "General", content: `${U} renamed issue Crash to **Crash on login**.` },
    { name: "issue deleted", payload: tg("issue_deleted"), topic: "General", content: `${U} deleted issue ${ISSUE}.` },
    { name: "issue commented", payload: tg("issue_comment"), topic: "General", content: `${U} commented on issue ${ISSUE}.` },
    { name: "sprint created", payload: tg("sprint_created"), topic: "General", content: `${U} created sprint **Sprint 4**.` },
    {
      name: "sprint renamed and its finish moved",
      payload: tg("sprint_changed"),
      topic: "General",
      content: `${U} changed estimated finish of sprint ${SPRINT} from 2026-03-14 to 2026-03-15.\n${U} renamed sprint from Sprint four to **Sprint 4**.`,
    },
    { name: "epic renamed", payload: tg("epic_renamed"), topic: "General", content: `${U} renamed epic from **Online status** to **Presence**.` },
    {
      name: "related user story added to an epic",
      payload: tg("relateduserstory_created"),
      topic: "General",
      content: `${U} added a related user story ${US} to the epic ${EPIC}.`,
    },
    { name: "webhook test", payload: tg("webhook_test"), topic: "General", content: `${U} triggered a test of the Taiga integration.` },
    { name: "a kind of item Zulip has no text for is unsupported", payload: tg("wiki_created"), ignored: { unsupportedEvent: "wikipage:create" } },
  ]);

  it("a change nobody would read about posts nothing", async () => {
    const before = (await h.newest())?.id ?? 0;
    await h.post("taiga", tg("userstory_unchanged_sprint"));
    expect(await h.since(before)).toEqual([]);
  });

  it("a payload without its author is a 400 and posts nothing", async () => {
    const before = (await h.newest())?.id ?? 0;
    const payload = structuredClone(tg("issue_deleted")) as Record<string, unknown>;
    delete payload.by;
    const res = await h.post("taiga", payload);
    expect(res.status).toBe(400);
    expect(res.body.msg).toContain("payload['by']");
    expect(await h.since(before)).toEqual([]);
  });
});
