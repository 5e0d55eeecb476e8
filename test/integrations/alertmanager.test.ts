import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

const DISK = "http://prometheus.example.com:9090/graph?g0.expr=node_filesystem_avail_bytes+%3C+1e9&g0.tab=0";
const UP = "http://prometheus.example.com:9090/graph?g0.expr=up&g0.tab=0";

describe("alertmanager", () => {
  const h = useWebhookHarness();

  itPosts(h, "alertmanager", [
    {
      name: "alerts are grouped by instance into topics, firing and resolved apart",
      payload: fixture("alertmanager", "firing_two"),
      messages: [
        { topic: "web-1:9100", content: `:alert: **FIRING**\n* DiskFull ([source](${DISK}))\n* DiskFull ([source](${DISK}))` },
        { topic: "web-1:9100", content: `:squared_ok: **Resolved** DiskFull ([source](${UP}))` },
        { topic: "web-2:9100", content: `:squared_ok: **Resolved** DiskFull ([source](${UP}))` },
      ],
    },
    {
      name: "the name and desc options read labels or annotations, with Zulip's fallbacks",
      payload: fixture("alertmanager", "firing_two"),
      query: { name: "cluster", desc: "description" },
      messages: [
        {
          topic: "(unknown)",
          content: `:alert: **FIRING**\n* Root filesystem on web-1 is 97% full ([source](${DISK}))\n* /var on web-1 is 99% full ([source](${DISK}))`,
        },
        {
          topic: "(unknown)",
          content: `:squared_ok: **Resolved**\n* <missing field: description> ([source](${UP}))\n* /tmp on web-1 has room again ([source](${UP}))`,
        },
      ],
    },
    {
      name: "a single resolved alert named by an annotation",
      payload: fixture("alertmanager", "resolved_custom_fields"),
      query: { name: "topic", desc: "summary" },
      topic: "databases",
      content:
        ":squared_ok: **Resolved** Load on db-3 is back to normal ([source](http://prometheus.example.com:9090/graph?g0.expr=node_load1+%3E+8&g0.tab=0))",
    },
    {
      name: "a notification without alerts posts nothing",
      payload: { receiver: "zulip", status: "firing", alerts: [], version: "4" },
      ignored: true,
    },
  ]);

  it("an alert without its generatorURL is a 400, and nothing is posted", async () => {
    const before = (await h.newest())?.id ?? 0;
    const payload = fixture("alertmanager", "resolved_custom_fields") as { alerts: Array<Record<string, unknown>> };
    delete payload.alerts[0]!.generatorURL;
    const res = await h.post("alertmanager", payload);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: "error", msg: "payload['alerts'][0]['generatorURL'] is missing" });
    expect(await h.since(before)).toEqual([]);
  });
});
