import { describe, expect, it } from "vitest";
import { expectSuccess } from "../support/testApp.js";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

/** Zulip's zapier integration: topic (or subject) and content, and the Zulip app's authentication check. */
const h = useWebhookHarness();

describe("zapier", () => {
  itPosts(h, "zapier", [
    {
      name: "topic and content",
      payload: fixture("zapier", "topic_and_content"),
      topic: "New email from alice@example.com",
      content: "Your email content is: \nMy Email content.",
    },
    {
      name: "the older subject",
      payload: fixture("zapier", "subject_and_content"),
      topic: "Here is your weather update for the day:",
      content: "Foggy in the morning.\nMaximum temperature to be 24.",
    },
    {
      name: "spaces inside a link are taken out",
      payload: fixture("zapier", "broken_link"),
      topic: "links",
      content: "Check this link: https://example.org/this/is/broken",
    },
  ]);

  it("the Zulip app's auth check answers with the bot, posting nothing", async () => {
    const before = (await h.newest())?.id ?? 0;
    expect(await h.post("zapier", fixture("zapier", "auth"))).toEqual({
      status: 200,
      body: { result: "success", msg: "", full_name: "Hooks", email: h.bot().email, id: h.bot().id },
    });
    expect(await h.since(before)).toEqual([]);
  });

  it("no topic or no content is a 400; a body that is not JSON does not tell the owner", async () => {
    const before = (await h.newest())?.id ?? 0;
    expect(await h.post("zapier", { content: "x" })).toMatchObject({ status: 400, body: { msg: "Topic can't be empty" } });
    expect(await h.post("zapier", { topic: "x" })).toMatchObject({ status: 400, body: { msg: "Content can't be empty" } });
    const dms = async () =>
      expectSuccess(
        await h.t.get("hamlet", "/api/v1/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow: [{ operator: "is", operand: "dm" }] }),
      ).messages.at(-1)?.id ?? 0;
    const dmBefore = await dms();
    expect(await h.post("zapier", "not json")).toMatchObject({ status: 400, body: { msg: "Malformed JSON" } });
    expect(await dms()).toBe(dmBefore);
    expect(await h.since(before)).toEqual([]);
  });
});
