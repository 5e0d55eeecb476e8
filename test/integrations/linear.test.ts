import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

const l = (name: string) => fixture("linear", name);
const ISSUE_44 = "https://linear.app/webhooks/issue/WEB-44/outage-on-1112";
const COMMENT = "https://linear.app/webhooks/issue/WEB-46#comment-c7cafc52";
const PROJECT = "https://linear.app/parley/project/zulip-project-532c1333013b";
const STATUS_UPDATE = "https://linear.app/parley/project/zulip-terminal-5bfd1327f54b/activity#project-update-bd310e45";

describe("Linear webhook", () => {
  const h = useWebhookHarness();

  itPosts(h, "linear", [
    {
      name: "issue created without a description",
      payload: l("issue_create_simple"),
      topic: "Issue: Drop-down overflow in the select menu",
      content:
        "[Issue](https://linear.app/webhooks/issue/WEB-42/drop-down-overflow-in-the-select-menu) was created in team Webhooks.\nPriority: High, Status: Todo.",
    },
    {
      name: "issue created with description and assignee",
      payload: l("issue_create_complex"),
      topic: "Issue: Outage on 11/12 between 20:00 and 22:00",
      content:
        `[Issue](${ISSUE_44}) was created in team Webhooks:\n~~~ quote\nThe outage needs a root-cause analysis.\n\nPlease collect the logs first.\n~~~\n\n` +
        "Priority: Urgent, Assignee: Satyam Bansal, Status: In Progress.",
    },
    {
      name: "issue updated",
      payload: l("issue_update"),
      topic: "Issue: Outage on 11/12 between 20:00 and 22:00",
      content: `[Issue](${ISSUE_44}) was updated in team Webhooks:\n~~~ quote\nNow with the logs attached.\n~~~\n\nStatus: In Progress.`,
    },
    {
      name: "issue removed",
      payload: l("issue_remove"),
      topic: "Issue: Outage on 11/12 between 20:00 and 22:00",
      content: "This issue has been removed from team Webhooks.",
    },
    {
      name: "sub-issue created",
      payload: l("sub_issue_create"),
      topic: "Sub-Issue: Impact Analysis",
      content:
        "[Sub-Issue](https://linear.app/webhooks/issue/WEB-46/impact-analysis) was created in team Webhooks:\n~~~ quote\nExamine the extent of the outage.\n~~~\n\nStatus: Todo.",
    },
    {
      name: "comment created",
      payload: l("comment_create"),
      topic: "Issue: Thorough Impact Analysis",
      content: `Satyam Bansal [commented](${COMMENT}) on issue **Thorough Impact Analysis**:\n~~~ quote\nPerforming a thorough impact analysis is crucial.\n\nLet's start today.\n~~~`,
    },
    {
      name: "comment updated",
      payload: l("comment_update"),
      topic: "Issue: Thorough Impact Analysis",
      content: `Satyam Bansal [updated comment](${COMMENT}) on issue **Thorough Impact Analysis**:\n~~~ quote\nEdited: start tomorrow.\n~~~`,
    },
    { name: "comment removed", payload: l("comment_remove"), topic: "Issue: Thorough Impact Analysis", content: "Satyam Bansal has removed a comment." },
    {
      name: "a topic in the URL wins",
      payload: l("comment_remove"),
      query: { topic: "notifications" },
      topic: "notifications",
      content: "Satyam Bansal has removed a comment.",
    },
    {
      name: "project created",
      payload: l("project_create"),
      topic: "Project: Project-Zulip",
      content:
        "Dhruv Shetty created project [Project-Zulip](https://linear.app/parley/project/project-zulip-a98782de01a9):\n~~~ quote\nThis is a project for zulip\n~~~\n**Status:** Backlog",
    },
    {
      name: "project created with dates, lead, priority and a milestone",
      payload: l("project_create_complex"),
      topic: "Project: Zulip-Project",
      content:
        `Dhruv Shetty created project [Zulip-Project](${PROJECT}):\n~~~ quote\nSummary for the Project\n**Start date:** 2026-05-28 – **Target date:** 2026-05-30\n~~~\n` +
        "**Status:** Planned · **Lead:** Dhruv Shetty · **Priority:** Urgent\n- **Milestone:** Phase 1",
    },
    {
      name: "project created without a description: dates become bullets",
      payload: l("project_create_without_description_with_dates"),
      topic: "Project: Zulip-terminal",
      content:
        "Dhruv Shetty created project [Zulip-terminal](https://linear.app/parley/project/zulip-terminal-5bfd1327f54b)\n**Status:** Backlog\n" +
        "- **Start date:** 2026-06-01\n- **Target date:** 2026-06-03\n- **Milestones:** Alpha, Beta",
    },
    {
      name: "project updated: status, priority, target date postponed",
      payload: l("project_update_several"),
      topic: "Project: Zulip-Project",
      content: `Dhruv Shetty updated project [Zulip-Project](${PROJECT}).\nProject status is now In Progress, priority is now set to High, target date is postponed to 2026-06-02.`,
    },
    {
      name: "project updated: renamed, lead, dates, description",
      payload: l("project_update_preponed"),
      topic: "Project: Zulip-Test-Project",
      content:
        "Dhruv Shetty updated project [Zulip-Test-Project](https://linear.app/parley/project/zulip-test-project-532c1333013b).\n" +
        "Renamed to Zulip-Test-Project, Dhruv Shetty is now the project lead, start date is set to 2026-05-28, target date is preponed to 2026-05-29, description is updated.",
    },
    { name: "Linear's project update after a status post is ignored", payload: l("project_update_after_status_post"), ignored: true },
    { name: "a project update that only clears a field is ignored", payload: l("project_update_cleared"), ignored: true },
    { name: "project removed", payload: l("project_remove"), topic: "Project: Project-Zulip", content: "Dhruv Shetty removed project **Project-Zulip**." },
    {
      name: "project status update posted",
      payload: l("project_update_post"),
      topic: "Project: Zulip-terminal",
      content: `Dhruv Shetty [posted](${STATUS_UPDATE}) a status update on **Zulip-terminal** (health: At Risk):\n~~~ quote\nThis is a project status update\n~~~`,
    },
    {
      name: "project status update edited, with its diff",
      payload: l("project_update_edit"),
      topic: "Project: Zulip-terminal",
      content: `Dhruv Shetty [edited](${STATUS_UPDATE}) a status update on **Zulip-terminal** (health: Off Track):\n~~~ quote\nThere is a risk\n~~~\n\n**Priority**: Medium`,
    },
    {
      name: "project status update removed",
      payload: l("project_update_remove"),
      topic: "Project: Zulip-terminal",
      content: "Dhruv Shetty removed a status update on **Zulip-terminal**.",
    },
    ...["IssueLabel", "Cycle", "Reaction"].map((type) => ({
      name: `${type} events are ignored`,
      payload: { action: "create", type, data: { id: "x" } },
      ignored: true as const,
    })),
    { name: "an unknown type is unsupported", payload: { action: "create", type: "Document", data: {} }, ignored: { unsupportedEvent: "Document:create" } },
  ]);

  it("an issue without its state is a 400 and posts nothing", async () => {
    const before = (await h.newest())?.id ?? 0;
    const payload = structuredClone(l("issue_create_simple")) as { data: Record<string, unknown> };
    delete payload.data.state;
    const res = await h.post("linear", payload);
    expect(res.status).toBe(400);
    expect(res.body.msg).toContain("payload['data']['state']");
    expect(await h.since(before)).toEqual([]);
  });
});
