import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

/** The fixture's bytes, sent as they are: `3.0` must reach the server as a float. */
const raw = (name: string) => readFileSync(new URL(`./fixtures/newrelic/${name}.json`, import.meta.url), "utf8");

const ISSUES = "https://radar-api.service.newrelic.com/accounts";

describe("newrelic", () => {
  const h = useWebhookHarness();

  itPosts(h, "newrelic", [
    {
      name: "an incident created, New Relic's default payload",
      payload: fixture("newrelic", "incident_created_default"),
      topic: "checkout-api query result is > 2.0 for 1 minutes on 'High...",
      content: `:red_circle: **[checkout-api query result is > 2.0 for 1 minutes on 'High error rate'](${ISSUES}/1/issues/0ea2df1c-adab-45d2-aae0-042b609d2322?notifier=WEBHOOK)**

\`\`\`quote
**Priority**: CRITICAL
**State**: CREATED
**Updated at**: <time:2025-05-14T08:50:00+00:00>

\`\`\`

\`\`\`spoiler :file: Incident details

- **Alert policies**: \`Golden Signals\`
- **Conditions**: \`High error rate\`
- **Total incidents**: 1
- **Incident created at**: <time:2025-05-14T08:50:00+00:00>

\`\`\``,
    },
    {
      name: "an incident acknowledged, Zulip's payload template with an owner",
      payload: fixture("newrelic", "incident_acknowledged_template"),
      topic: "db-1 disk usage above 90%",
      content: `:orange_circle: **[db-1 disk usage above 90%](${ISSUES}/4420147/issues/13bbcdca-f0b6-470d-b0be-b34583c58869?notifier=WEBHOOK)**

\`\`\`quote
**Priority**: HIGH
**State**: ACTIVATED
**Updated at**: <time:2025-05-14T09:05:00+00:00>
**Acknowledged by**: Kim Lee
\`\`\`

\`\`\`spoiler :file: Incident details

- **Alert policies**: \`Databases\`, \`Storage\`
- **Conditions**: \`Disk usage\`
- **Total incidents**: 2
- **Incident created at**: <time:2025-05-14T08:50:00+00:00>

\`\`\``,
    },
    {
      name: "an incident closed, with custom fields printed as Python prints them",
      payload: raw("incident_closed_custom_fields"),
      topic: "Queue depth",
      content: `:blue_circle: **[Queue depth](${ISSUES}/4420147/issues/c5faa7e6-7b54-402d-af79-f99601e0278c?notifier=WEBHOOK)**

\`\`\`quote
**Priority**: LOW
**State**: CLOSED
**Updated at**: <time:2025-05-14T06:22:03+00:00>

\`\`\`

\`\`\`spoiler :file: Incident details

- **Alert policies**: \`Workers\`
- **Conditions**: \`Queue depth\`, \`Queue age\`
- **Total incidents**: 1
- **Incident created at**: <time:2025-05-14T05:20:00+00:00>
- **Runbook**: https://runbooks.example.com/queues
- **Paging enabled**: True
- **Threshold**: 2000
- **Ratio**: 0.5
- **Retries**: 3.0
- **Regions**: eu-west-1, 2000, 1.0, False, None
- **Escalated to**: None
- **Nested**: *Value is not a supported data type*
- **List of lists**: *Value is not a supported data type*

\`\`\``,
    },
    {
      name: "a payload missing expected fields is posted as a warning listing them",
      payload: fixture("newrelic", "missing_fields"),
      topic: "New Relic incident alerts",
      content: `:danger: A New Relic [incident](https://one.newrelic.com/alerts-ai) updated

**Warning**: Unable to use the default notification format because at least one expected field was missing from the incident payload. See [New Relic integration documentation](/integrations/newrelic).

**Missing fields**: \`issueUrl\`, \`totalIncidents\`, \`updatedAt\`, \`alertConditionNames\``,
    },
    {
      name: "only_events filters by the incident's state",
      payload: fixture("newrelic", "incident_created_default"),
      query: { only_events: '["CLOSED"]' },
      ignored: true,
    },
  ]);

  it("an unknown priority is a 400, and nothing is posted", async () => {
    const before = (await h.newest())?.id ?? 0;
    const res = await h.post("newrelic", { ...(fixture("newrelic", "incident_created_default") as object), priority: "URGENT" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: "error", msg: "Invalid payload['priority']" });
    expect(await h.since(before)).toEqual([]);
  });
});
