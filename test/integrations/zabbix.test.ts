import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

describe("zabbix", () => {
  const h = useWebhookHarness();

  itPosts(h, "zabbix", [
    {
      name: "a trigger's problem",
      payload: fixture("zabbix", "problem"),
      topic: "db-1.example.net",
      content:
        "PROBLEM (High) alert on [db-1.example.net](https://zabbix.example.net/tr_events.php?triggerid=20415&eventid=88123):\n* Free disk space is less than 5% on db-1.example.net\n* Free disk space on / is 3.2 %",
    },
    {
      name: "the URL's topic replaces the host",
      payload: fixture("zabbix", "problem"),
      query: { topic: "Zabbix" },
      topic: "Zabbix",
      content:
        "PROBLEM (High) alert on [db-1.example.net](https://zabbix.example.net/tr_events.php?triggerid=20415&eventid=88123):\n* Free disk space is less than 5% on db-1.example.net\n* Free disk space on / is 3.2 %",
    },
  ]);

  it("a payload missing a field is Zulip's 'Invalid payload', and nothing is posted", async () => {
    const before = (await h.newest())?.id ?? 0;
    const dmBefore = await h.newestOwnerDmId();
    const res = await h.post("zabbix", fixture("zabbix", "missing_hostname"));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: "error", msg: "Invalid payload" });
    expect(await h.since(before)).toEqual([]);
    // Zulip tells the bot's owner what to fix.
    const notices = await h.ownerNotices(dmBefore);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^Hi there! Your bot Hooks just received a Zabbix payload that is missing\nsome data that Zulip requires\./);
  });
});
