import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness, type WebhookCase } from "./support.js";

const f = (name: string) => fixture("front", name);
const FORM = "application/x-www-form-urlencoded";
const post = (name: string, fixtureName: string, topic: string, content: string): WebhookCase => ({
  name,
  payload: f(fixtureName),
  contentType: FORM,
  topic,
  content,
});

describe("Front webhook", () => {
  const h = useWebhookHarness();

  itPosts(h, "front", [
    post(
      "outbound message",
      "outbound_message",
      "cnv_keo696",
      "[Outbound message](https://app.frontapp.com/open/msg_1176ie2) from **support@planet-express.example** to **calculon@momsbot.example**:\n" +
        "```quote\n*Subject*: Your next delivery is on Epsilon 96Z\n```",
    ),
    post(
      "inbound message",
      "inbound_message",
      "cnv_keocka",
      "[Inbound message](https://app.frontapp.com/open/msg_1176r8y) from **calculon@momsbot.example** to **support@planet-express.example**:\n" +
        "```quote\n*Subject*: Cancellation Request for Subscription #SUB-67890\n```",
    ),
    post(
      "outbound reply",
      "outbound_reply",
      "cnv_keocka",
      "[Outbound reply](https://app.frontapp.com/open/msg_1176ryy) from **support@planet-express.example** to **calculon@momsbot.example**.",
    ),
    post("comment", "comment", "cnv_keocka", "**Bender Rodriguez** left a comment:\n```quote\nSure.\n```"),
    post("mention", "mention", "cnv_keocka", "**Leela Turanga** left a comment:\n```quote\n@bender Could you take it from here?\n```"),
    post("assigned to themselves", "assign_self", "cnv_keo696", "**Leela Turanga** assigned themselves."),
    post("assigned to a teammate", "assign_other", "cnv_keocka", "**Leela Turanga** assigned **Bender Rodriguez**."),
    post("assigned by a rule", "assign_by_rule", "cnv_keocka", "**'Important deliveries' rule** assigned **Bender Rodriguez**."),
    post("unassigned", "unassign", "cnv_keo696", "Unassigned by **Leela Turanga**."),
    post("archived by a non-teammate source", "archive_gmail", "cnv_keo696", "Archived by **(gmail)**."),
    post("reopened", "reopen", "cnv_keo696", "Reopened by **Leela Turanga**."),
    post("deleted", "trash", "cnv_keo696", "Deleted by **Leela Turanga**."),
    post("restored", "restore", "cnv_keo696", "Restored by **Leela Turanga**."),
    post("tagged", "tag", "cnv_keocka", "**Leela Turanga** added tag **Urgent**."),
    post("untagged", "untag", "cnv_keocka", "**Leela Turanga** removed tag **Urgent**."),
    { name: "exclude_events leaves out a type", payload: f("tag"), query: { exclude_events: '["tag"]' }, ignored: true },
  ]);

  it("an unknown event type is a 400 with Zulip's text", async () => {
    const before = (await h.newest())?.id ?? 0;
    const payload = { ...(f("assign_other") as object), type: "qwerty" };
    const res = await h.post("front", payload, { contentType: FORM });
    expect(res).toMatchObject({ status: 400, body: { result: "error", msg: "Unknown webhook request" } });
    expect(await h.since(before)).toEqual([]);
  });

  it("a message without its conversation's recipient is a 400 and posts nothing", async () => {
    const before = (await h.newest())?.id ?? 0;
    const payload = structuredClone(f("inbound_message")) as { conversation: Record<string, unknown> };
    delete payload.conversation.recipient;
    const res = await h.post("front", payload);
    expect(res.status).toBe(400);
    expect(res.body.msg).toContain("payload['conversation']['recipient']");
    expect(await h.since(before)).toEqual([]);
  });
});
