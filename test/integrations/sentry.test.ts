import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

const s = (name: string) => fixture("sentry", name);
const INVALID_STATE = "Exception: program has entered an invalid state.";

describe("Sentry webhook", () => {
  const h = useWebhookHarness();

  itPosts(h, "sentry", [
    {
      name: "exception event with a traceback (Python)",
      payload: s("event_exception_python"),
      topic: "Exception: Custom exception!",
      content:
        "**New exception:** [Exception: Custom exception!](https://sentry.io/organizations/parley/issues/1635244907/events/599349254a1447a99774b5310711c1a8/)\n" +
        "```quote\n**level:** error\n**timestamp:** <time:2026-04-28T13:56:05+00:00>\n**filename:** trigger-exception.py\n```\n\n" +
        "Traceback:\n```python3\n\n\n" +
        '     if __name__ == "__main__":\n         sentry_sdk.init(dsn=SECRET_DSN)\n         try:\n' +
        '--->         raise Exception("Custom exception!")\n' +
        "         except Exception as e:\n             sentry_sdk.capture_exception(e)\n```",
    },
    {
      name: "exception event without a matching frame",
      payload: s("event_exception_no_frame"),
      topic: "Error: Something external broke.",
      content:
        "**New exception:** [Error: Something external broke.](https://sentry.io/organizations/parley/issues/1731239773/events/355c3b2a142046629dd410db2fdda003/)\n" +
        "```quote\n**level:** error\n**timestamp:** <time:2026-06-17T14:42:54+00:00>\n**filename:** None\n```",
    },
    {
      name: "message event",
      payload: s("event_message_golang"),
      topic: "A test message event from golang.",
      content:
        "**New message event:** [A test message event from golang.](https://sentry.io/organizations/parley/issues/1638844654/events/01ecb45633bc4f5ca940ada671124c8f/)\n" +
        "```quote\n**level:** info\n**timestamp:** <time:2026-04-30T06:14:13+00:00>\n```",
    },
    {
      name: "event from the WebHooks plugin",
      payload: s("webhook_event_exception_javascript"),
      topic: 'TypeError: can\'t access property "bar", x.foo is undefined',
      content:
        '**New exception:** [TypeError: can\'t access property "bar", x.foo is undefined](https://sentry.io/organizations/parley/issues/1982047746/events/f3bf5fc4e354451db9e885a69b2a2b51/)\n' +
        "```quote\n**level:** error\n**timestamp:** <time:2020-10-26T16:39:54+00:00>\n**filename:** None\n```",
    },
    {
      name: "issue created",
      payload: s("issue_created"),
      topic: INVALID_STATE,
      content: `**New issue created:** ${INVALID_STATE}\n\`\`\`quote\n**level:** error\n**timestamp:** <time:2026-04-28T13:56:05+00:00>\n**assignee:** No one\n\`\`\``,
    },
    {
      name: "issue assigned to a team",
      payload: s("issue_assigned_to_team"),
      topic: INVALID_STATE,
      content: `Issue **${INVALID_STATE}** has now been assigned to **team lone-wolf** by **Hemanth V. Alluri**.`,
    },
    {
      name: "issue assigned to a person",
      payload: s("issue_assigned_to_individual"),
      topic: "A test message event from golang.",
      content: "Issue **A test message event from golang.** has now been assigned to **Hemanth V. Alluri** by **Hemanth V. Alluri**.",
    },
    {
      name: "issue resolved",
      payload: s("issue_resolved"),
      topic: INVALID_STATE,
      content: `Issue **${INVALID_STATE}** was marked as resolved by **Hemanth V. Alluri**.`,
    },
    { name: "issue ignored", payload: s("issue_ignored"), topic: INVALID_STATE, content: `Issue **${INVALID_STATE}** was ignored by **Hemanth V. Alluri**.` },
    {
      name: "legacy payload",
      payload: s("deprecated_exception_message"),
      topic: "chat",
      content: "New [issue](https://sentry.io/parley/chat/issues/156699934/) (level: ERROR):\n\n``` quote\nThis is an example python exception\n```",
    },
    { name: "an event from the Raven Python SDK is unsupported", payload: s("raven_sdk_python_event"), ignored: { unsupportedEvent: "Raven SDK" } },
    { name: "an unknown issue action is unsupported", payload: s("issue_archived"), ignored: { unsupportedEvent: "archived action" } },
    {
      name: "unknown data is unsupported, named by its keys",
      payload: { action: "created", data: { installation: { uuid: "x" } }, actor: { name: "Sentry" } },
      ignored: { unsupportedEvent: "['installation']" },
    },
  ]);

  it("an issue without lastSeen is a 400 and posts nothing", async () => {
    const before = (await h.newest())?.id ?? 0;
    const payload = structuredClone(s("issue_created")) as { data: { issue: Record<string, unknown> } };
    delete payload.data.issue.lastSeen;
    const res = await h.post("sentry", payload);
    expect(res.status).toBe(400);
    expect(res.body.msg).toContain("payload['data']['issue']['lastSeen']");
    expect(await h.since(before)).toEqual([]);
  });
});
