import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness, type WebhookCase } from "./support.js";

const ID = "4b1c9a2e-77f0-4d1e-9a3b-1f2e3d4c5b6a";
const head = (type: string, region = "") => `[Opsgenie alert for Ops Webhook](https://app.${region}opsgenie.com/alert/V2#/show/${ID}):\n* **Type**: ${type}`;
const MESSAGE = "* **Message**: Database CPU above 90%";
const TAGS = "* **Tags**: `db`, `prod`";

const simple = (name: string, type: string, lines: string[]): WebhookCase => ({
  name: `${type}`,
  payload: fixture("opsgenie", name),
  topic: "Ops Webhook",
  content: [head(type), ...lines].join("\n"),
});

describe("opsgenie", () => {
  const h = useWebhookHarness();

  itPosts(h, "opsgenie", [
    simple("create", "Create", [MESSAGE, TAGS]),
    simple("acknowledge", "Acknowledge", [MESSAGE, TAGS]),
    simple("unacknowledge", "UnAcknowledge", [MESSAGE, TAGS]),
    simple("addnote", "AddNote", ["* **Note**: Looking into it", MESSAGE, TAGS]),
    simple("addrecipient", "AddRecipient", ["* **Recipient**: dba_escalation", MESSAGE, TAGS]),
    simple("addtags", "AddTags", ["* **Tags added**: cpu,urgent", MESSAGE, "* **Tags**: `db`, `prod`, `cpu`, `urgent`"]),
    simple("removetags", "RemoveTags", ["* **Tags removed**: prod", MESSAGE, "* **Tags**: `db`"]),
    simple("addteam", "AddTeam", ["* **Team added**: dba", MESSAGE, TAGS]),
    simple("assignownership", "AssignOwnership", ["* **Assigned owner**: kim@example.com", MESSAGE, TAGS]),
    simple("takeownership", "TakeOwnership", [MESSAGE, TAGS]),
    simple("customaction", "RestartService", [MESSAGE, TAGS]),
    simple("close", "Close", [MESSAGE]),
    simple("delete", "Delete", [MESSAGE]),
    {
      name: "Escalate",
      payload: fixture("opsgenie", "escalate"),
      topic: "Ops Webhook",
      content:
        "[Opsgenie alert for Ops Webhook](https://app.opsgenie.com/alert/V2#/show/7ba97e3a-d328-4b5e-8f9a-39e945a3869a):\n* **Type**: Escalate\n* **Escalation**: DBA escalation",
    },
    {
      name: "eu_region links to Opsgenie's EU site",
      payload: fixture("opsgenie", "create"),
      query: { eu_region: "true" },
      topic: "Ops Webhook",
      content: [head("Create", "eu."), MESSAGE, TAGS].join("\n"),
    },
    { name: "only_events filters by the action", payload: fixture("opsgenie", "acknowledge"), query: { only_events: '["Create"]' }, ignored: true },
  ]);

  it("a payload without integrationName is a 400, and nothing is posted", async () => {
    const before = (await h.newest())?.id ?? 0;
    const payload = fixture("opsgenie", "create") as Record<string, unknown>;
    delete payload.integrationName;
    const res = await h.post("opsgenie", payload);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: "error", msg: "payload['integrationName'] is missing" });
    expect(await h.since(before)).toEqual([]);
  });
});
