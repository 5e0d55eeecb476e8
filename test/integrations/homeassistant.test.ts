import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

describe("homeassistant", () => {
  const h = useWebhookHarness();

  itPosts(h, "homeassistant", [
    {
      name: "a notification with a title",
      payload: fixture("homeassistant", "with_topic"),
      topic: "Garage door",
      content: "The garage door has been open for 30 minutes.",
    },
    {
      name: "a notification without a title goes to the topic homeassistant",
      payload: fixture("homeassistant", "simple"),
      contentType: "application/x-www-form-urlencoded",
      topic: "homeassistant",
      content: "Good morning! It will be sunny, 24 °C.",
    },
  ]);

  it("a notification without a message is a 400, and nothing is posted", async () => {
    const before = (await h.newest())?.id ?? 0;
    const res = await h.post("homeassistant", { topic: "Garage door" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: "error", msg: "payload['message'] is missing" });
    expect(await h.since(before)).toEqual([]);
  });
});
