import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

describe("pingdom", () => {
  const h = useWebhookHarness();

  itPosts(h, "pingdom", [
    {
      name: "an HTTPS check goes from up to down",
      payload: fixture("pingdom", "https_up_to_down"),
      topic: "Shop status.",
      content: "Service shop.example.com changed its HTTPS status from UP to DOWN:\n\n``` quote\nTimeout (> 30000 ms)\n```",
    },
    {
      name: "an HTTPS check goes from down to up",
      payload: fixture("pingdom", "https_down_to_up"),
      topic: "Shop status.",
      content: "Service shop.example.com changed its HTTPS status from DOWN to UP.",
    },
    {
      name: "an SMTP check goes from up to down",
      payload: fixture("pingdom", "smtp_up_to_down"),
      topic: "Mail relay status.",
      content: "Service smtp.example.com changed its SMTP status from UP to DOWN:\n\n``` quote\nConnection refused\n```",
    },
    {
      name: "other state changes are not quoted",
      payload: fixture("pingdom", "dns_unconfirmed_to_down"),
      topic: "Resolver status.",
      content: "Service ns1.example.com changed its DNS status from UNCONFIRMED_DOWN to DOWN.",
    },
    { name: "an unsupported check type", payload: fixture("pingdom", "transaction"), ignored: { unsupportedEvent: "TRANSACTION" } },
    { name: "only_events filters by check type", payload: fixture("pingdom", "smtp_up_to_down"), query: { only_events: '["HTTP*"]' }, ignored: true },
  ]);

  it("a check without its hostname is a 400, and nothing is posted", async () => {
    const before = (await h.newest())?.id ?? 0;
    const payload = fixture("pingdom", "https_up_to_down") as { check_params: Record<string, unknown> };
    delete payload.check_params.hostname;
    const res = await h.post("pingdom", payload);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: "error", msg: "payload['check_params']['hostname'] is missing" });
    expect(await h.since(before)).toEqual([]);
  });
});
