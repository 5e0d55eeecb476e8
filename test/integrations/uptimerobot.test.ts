import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

describe("uptimerobot", () => {
  const h = useWebhookHarness();

  itPosts(h, "uptimerobot", [
    {
      name: "a monitor goes down",
      payload: fixture("uptimerobot", "monitor_down"),
      topic: "Shop front",
      content: "Shop front (https://shop.example.com) is DOWN (Connection Timeout).",
    },
    {
      name: "a monitor comes back up",
      payload: fixture("uptimerobot", "monitor_up"),
      topic: "Shop front",
      content: "Shop front (https://shop.example.com) is back UP (HTTP 200 - OK).\nIt was down for 12 minutes and 5 seconds.",
    },
    { name: "another alert type is unsupported", payload: fixture("uptimerobot", "ssl_expiry"), ignored: { unsupportedEvent: "SSL Expiry" } },
    { name: "only_events filters by up and down", payload: fixture("uptimerobot", "monitor_up"), query: { only_events: '["down"]' }, ignored: true },
  ]);

  it("the unsupported-event answer names UptimeRobot as Zulip's does", async () => {
    const res = await h.post("uptimerobot", fixture("uptimerobot", "ssl_expiry"));
    expect(res.body.msg).toBe("The 'SSL Expiry' event isn't currently supported by the UptimeRobot webhook; ignoring");
  });

  it("a payload missing a field is Zulip's 'Invalid payload', and nothing is posted", async () => {
    const before = (await h.newest())?.id ?? 0;
    const dmBefore = await h.newestOwnerDmId();
    const res = await h.post("uptimerobot", fixture("uptimerobot", "missing_name"));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: "error", msg: "Invalid payload" });
    expect(await h.since(before)).toEqual([]);
    // Zulip tells the bot's owner what to fix.
    const notices = await h.ownerNotices(dmBefore);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^Hi there! Your bot Hooks just received a Uptime Robot payload that is missing\nsome data that Zulip requires\./);
  });
});
