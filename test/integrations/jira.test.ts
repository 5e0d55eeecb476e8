import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

const j = (name: string) => fixture("jira", name);

describe("Jira webhook", () => {
  const h = useWebhookHarness();

  itPosts(h, "jira", [
    {
      name: "issue created, with an assignee",
      payload: j("issue_created"),
      topic: "CHAT-21: Typing indicator sticks after send",
      content:
        "Ada Lovelace created [CHAT-21: Typing indicator sticks after send](https://parley.atlassian.net/browse/CHAT-21):\n\n" +
        "* **Priority**: High\n* **Assignee**: Grace Hopper",
    },
    {
      name: "issue created, unassigned, with non-ASCII text",
      payload: j("issue_created_unassigned"),
      topic: "BUG-15: New bug with à hook",
      content:
        "Leo Franchi created [BUG-15: New bug with à hook](http://jira.example.org:8080/browse/BUG-15):\n\n* **Priority**: Major\n* **Assignee**: no one",
    },
    {
      name: "issue deleted",
      payload: j("issue_deleted"),
      topic: "BUG-15: New bug with hook",
      content: "Leo Franchi deleted [BUG-15: New bug with hook](http://jira.example.org:8080/browse/BUG-15).",
    },
    {
      name: "issue deleted, a title ending in punctuation gets no period",
      payload: j("issue_deleted_punctuated"),
      topic: "BUG-16: Why does it crash?",
      content: "Leo Franchi deleted [BUG-16: Why does it crash?](http://jira.example.org:8080/browse/BUG-16)",
    },
    {
      name: "issue reassigned",
      payload: j("issue_reassigned"),
      topic: "BUG-15: New bug with hook",
      content:
        "Leo Franchi updated [BUG-15: New bug with hook](http://jira.example.org:8080/browse/BUG-15) (assigned to **othello@elsewhere.example**):\n\n" +
        "* Changed assignee to **othello@elsewhere.example**",
    },
    {
      name: "issue updated: priority and labels from the changelog",
      payload: j("issue_priority_updated"),
      topic: "TEST-1: Fix That",
      content:
        "Leonardo Franchi [Administrator] updated [TEST-1: Fix That](https://parley.atlassian.net/browse/TEST-1) (assigned to **leo@example.com**):\n\n" +
        "* Changed priority from **Critical** to **Major**\n* Changed labels to **backend**",
    },
    {
      name: "status transition (old payload without webhookEvent)",
      payload: j("issue_transitioned_v1"),
      topic: "TEST-1: Fix That",
      content:
        "Leonardo Franchi [Administrator] updated [TEST-1: Fix That](https://parley.atlassian.net/browse/TEST-1):\n\n* Changed status from **To Do** to **In Progress**",
    },
    {
      name: "comment in an issue update, Jira markup converted",
      payload: j("issue_commented_markup"),
      topic: "TEST-7: Testing of rich text",
      content:
        "Leonardo Franchi [Administrator] commented on [TEST-7: Testing of rich text](https://parley.atlassian.net/browse/TEST-7):\n\n``` quote\n" +
        "This is **bold**, `mono space` and **grace** asks.\n> A quoted line\n~~~ quote\nSomeone said\nsomething\n~~~\n" +
        '~~~\nprint("hi")\n~~~\n~~~\nraw text\n~~~\n' +
        "[http://www.example.com](http://www.example.com) and [Example](http://www.example.com).\n```",
    },
    {
      name: "comment edited",
      payload: j("issue_comment_edited"),
      topic: "BUG-15: New bug with hook",
      content:
        "Leo Franchi edited a comment on [BUG-15: New bug with hook](http://jira.example.org:8080/browse/BUG-15) (assigned to **othello@elsewhere.example**):\n\n" +
        "``` quote\nAdding a comment. Oh, what a comment it is!\n```",
    },
    {
      name: "comment deleted (issue update)",
      payload: j("issue_comment_deleted"),
      topic: "TOM-1: New Issue",
      content: "Tomasz Kolek deleted a comment from [TOM-1: New Issue](https://tomek.atlassian.net/browse/TOM-1) (assigned to **kolaszek@example.com**).",
    },
    {
      name: "comment_created",
      payload: j("comment_created"),
      topic: "SP-1: Add support for newer format Jira issue comment events",
      content:
        "Hemanth V. Alluri commented on [SP-1: Add support for newer format Jira issue comment events](https://parley.atlassian.net/browse/SP-1)\n" +
        "``` quote\nSounds like it’s pretty important. I’ll get this fixed ASAP!\n```",
    },
    {
      name: "comment_created without issue details",
      payload: j("comment_created_no_issue"),
      topic: "10000: Upgrade Jira to get the issue title here.",
      content: "Hemanth V. Alluri commented on 10000: Upgrade Jira to get the issue title here.\n``` quote\nSounds like it’s pretty important.\n```",
    },
    {
      name: "comment_updated",
      payload: j("comment_updated"),
      topic: "SP-1: Add support for newer format Jira issue comment events",
      content:
        "Hemanth V. Alluri updated their comment on [SP-1: Add support for newer format Jira issue comment events](https://parley.atlassian.net/browse/SP-1)\n" +
        "``` quote\nThis is a very important issue! I’m on it!\n```",
    },
    {
      name: "comment_deleted",
      payload: j("comment_deleted"),
      topic: "SP-1: Add support for newer format Jira issue comment events",
      content:
        "Hemanth V. Alluri deleted their comment on [SP-1: Add support for newer format Jira issue comment events](https://parley.atlassian.net/browse/SP-1)\n" +
        "``` quote\n~~This is a very important issue! I’m on it!~~\n```",
    },
    {
      name: "a double-escaped topic in the URL is unquoted",
      payload: j("issue_deleted"),
      query: { topic: "alerts%20test" },
      topic: "alerts test",
      content: "Leo Franchi deleted [BUG-15: New bug with hook](http://jira.example.org:8080/browse/BUG-15).",
    },
    ...["sprint_started", "worklog_created", "jira:version_released", "issuelink_created"].map((event) => ({
      name: `${event} is ignored`,
      payload: { webhookEvent: event },
      ignored: true as const,
    })),
    { name: "an unknown event is unsupported", payload: { webhookEvent: "project_created" }, ignored: { unsupportedEvent: "project_created" } },
    {
      name: "only_events leaves out other events",
      payload: j("issue_deleted"),
      query: { only_events: '["jira:issue_created"]' },
      ignored: true,
    },
  ]);

  it("a payload with neither webhookEvent nor transition is anomalous", async () => {
    const before = (await h.newest())?.id ?? 0;
    const res = await h.post("jira", { issue: { key: "X-1" } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: "error", code: "ANOMALOUS_WEBHOOK_PAYLOAD", msg: "Unable to parse request: Did Jira generate this event?" });
    expect(await h.since(before)).toEqual([]);
  });

  it("a comment event without the comment's body is a 400 and posts nothing", async () => {
    const before = (await h.newest())?.id ?? 0;
    const payload = structuredClone(j("comment_updated")) as { comment: Record<string, unknown> };
    delete payload.comment.body;
    const res = await h.post("jira", payload);
    expect(res.status).toBe(400);
    expect(res.body.msg).toContain("payload['comment']['body']");
    expect(await h.since(before)).toEqual([]);
  });
});
