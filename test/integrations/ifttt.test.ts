import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

/** Zulip's ifttt integration: an applet's topic (or subject) and content. */
const h = useWebhookHarness();

describe("ifttt", () => {
  itPosts(h, "ifttt", [
    {
      name: "topic and content",
      payload: fixture("ifttt", "topic_and_content"),
      topic: "Email sent from alice@example.com",
      content: "Email subject: Subject\nEmail body: Body",
    },
    { name: "the older subject", payload: fixture("ifttt", "subject_and_content"), topic: "Weather", content: "Sunny, 24°C" },
  ]);

  it("no topic, no content, or a field that is not text is a 400, nothing posted", async () => {
    const before = (await h.newest())?.id ?? 0;
    expect(await h.post("ifttt", { content: "x" })).toMatchObject({ status: 400, body: { msg: "Topic can't be empty" } });
    expect(await h.post("ifttt", { topic: "x" })).toMatchObject({ status: 400, body: { msg: "Content can't be empty" } });
    expect(await h.post("ifttt", { topic: "x", content: { text: "y" } })).toMatchObject({ status: 400, body: { msg: "Malformed payload" } });
    expect(await h.post("ifttt", { topic: ["x"], content: "y" })).toMatchObject({ status: 400, body: { msg: "Malformed payload" } });
    expect(await h.since(before)).toEqual([]);
  });
});
