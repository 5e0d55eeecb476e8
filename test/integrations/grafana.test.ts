import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

/** The fixture's bytes, sent as they are: `2.0` must reach the server as a float. */
const raw = (name: string) => readFileSync(new URL(`./fixtures/grafana/${name}.json`, import.meta.url), "utf8");

describe("grafana", () => {
  const h = useWebhookHarness();

  itPosts(h, "grafana", [
    {
      name: "unified alerting: a firing alert with values, annotations and links",
      payload: raw("unified_firing"),
      topic: "[Disk usage]",
      content: `:alert: **FIRING**

**Disk usage**

This alert was fired at <time:2025-05-14T08:30:00+00:00>.

Labels:
- alertname: Disk usage
- grafana_folder: servers
- host: db-1

Values:
- A: 91.25
- B: 1
- C: 2.0

Annotations:
- summary: Disk on db-1 is filling up

[Generator](https://grafana.example.com/alerting/grafana/abc123/view?orgId=1)
[Silence](https://grafana.example.com/alerting/silence/new?alertmanager=grafana&matcher=alertname%3DDisk+usage)
[Image](https://grafana.example.com/render/disk.png)`,
    },
    {
      name: "unified alerting: a resolved alert with a value string and an offset start time",
      payload: fixture("grafana", "unified_resolved"),
      contentType: "application/x-www-form-urlencoded",
      topic: "[API latency]",
      content: `:checkbox: **RESOLVED**

**API latency**

This alert was fired at <time:2025-05-14T10:02:11+02:00>.

This alert was resolved at <time:2025-05-14T10:17:45+00:00>.

Labels:
- alertname: API latency
- service: api

Values:
[ metric='p99' labels={service=api} value=0.21 ]

Annotations:
- description: p99 latency is back under 300ms
- runbook_url: https://runbooks.example.com/api-latency

[Silence](https://grafana.example.com/alerting/silence/new?matcher=alertname%3DAPI+latency)`,
    },
    {
      name: "unified alerting: alerts without an alertname are named by their fingerprint, one message each",
      payload: fixture("grafana", "unified_no_alertname"),
      messages: [
        {
          topic: "[e6349a25f5ef0e9e]",
          content: `:alert: **FIRING**

This alert was fired at <time:2025-05-14T08:30:00+00:00>.
[Generator](https://grafana.example.com/alerting/grafana/xyz/view)`,
        },
        {
          topic: "[77aa88bb99cc00dd]",
          content: `:alert: **FIRING**

This alert was fired at <time:2025-05-14T08:31:00+00:00>.

Labels:
- alertname: 
- team: ops

Annotations:
- summary: Queue backlog`,
        },
      ],
    },
    {
      name: "legacy: alerting, with eval matches printed as Python prints numbers",
      payload: raw("legacy_alerting"),
      topic: "[Alerting] Load rule",
      content: `:alert: **ALERTING**

[Load rule](https://grafana.example.com/d/abc/load?tab=alert&panelId=2&orgId=1)

Load is above the threshold.

**High value:** 100
**A-series:** 21.573108436586445
**Higher Value:** 200.0

[Click to view visualization](https://grafana.example.com/render/panel.png)`,
    },
    {
      name: "legacy: ok",
      payload: fixture("grafana", "legacy_ok"),
      topic: "[OK] Load rule",
      content: ":squared_ok: **OK**\n\n[Load rule](https://grafana.example.com/d/abc/load?tab=alert&panelId=2&orgId=1)",
    },
    {
      name: "legacy: paused",
      payload: fixture("grafana", "legacy_paused"),
      topic: "[Paused] Load rule",
      content:
        ":info: **PAUSED**\n\n[Load rule](https://grafana.example.com/d/abc/load)\n\nSomeone paused this rule.\n\n\n[Click to view visualization](https://grafana.example.com/render/panel.png)",
    },
    {
      name: "legacy: no data, with a null value",
      payload: fixture("grafana", "legacy_no_data"),
      topic: "[No Data] No Data alert",
      content: ":info: **NO_DATA**\n\n[No Data alert](https://grafana.example.com/d/def/nodata)\n\n**B-series:** None",
    },
    {
      name: "only_events filters by the alert's status",
      payload: fixture("grafana", "unified_firing"),
      query: { only_events: '["resolved", "ok"]' },
      ignored: true,
    },
    {
      name: "an empty list of alerts posts nothing",
      payload: { receiver: "zulip", status: "firing", alerts: [] },
      ignored: true,
    },
  ]);

  it("a unified alert without its start time is a 400, and nothing is posted", async () => {
    const before = (await h.newest())?.id ?? 0;
    const payload = fixture("grafana", "unified_firing") as { alerts: Array<Record<string, unknown>> };
    delete payload.alerts[0]!.startsAt;
    const res = await h.post("grafana", payload);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: "error", msg: "payload['alerts'][0]['startsAt'] is missing" });
    expect(await h.since(before)).toEqual([]);
  });

  it("a legacy alert in an unknown state is a 400", async () => {
    const res = await h.post("grafana", { ...(fixture("grafana", "legacy_ok") as object), state: "exploded" });
    expect(res.status).toBe(400);
  });
});
