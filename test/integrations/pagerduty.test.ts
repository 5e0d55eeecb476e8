import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

const B = "https://acme.pagerduty.com";
const V1 = `Incident [7](${B}/incidents/PX7K9J2)`;
const V2 = `Incident [33](${B}/incidents/PRORDTY)`;
const V3 = `Incident [Disk full on db-1 (#9)](${B}/incidents/PFQZPSY)`;
const DANA = `[dana.ops](${B}/users/POBCFRJ)`;
const LEE = `[lee](${B}/users/PJ9ODL1)`;
const RAE = `[Rae Smith](${B}/users/P553OPV)`;
const KIM = `[Kim Lee](${B}/users/PJ0LVEB)`;
const QUOTE = "\n\n``` quote\nCheckout errors above 5%\n```";
const V3_TOPIC = "Incident Disk full on db-1 (#9)";

describe("pagerduty", () => {
  const h = useWebhookHarness();

  itPosts(h, "pagerduty", [
    {
      name: "v1: triggered",
      payload: fixture("pagerduty", "v1_trigger"),
      topic: "Incident 7",
      content: `${V1} triggered by [Checkout API](${B}/services/PIL5CUQ) (assigned to ${DANA}).\n\n\`\`\` quote\nCheckout errors above 5%\nSeen on 3 hosts\n\`\`\``,
    },
    {
      name: "v1: assigned, then acknowledged without trigger summary data",
      payload: fixture("pagerduty", "v1_acknowledge_and_assign"),
      messages: [
        { topic: "Incident 7", content: `${V1} assigned to ${LEE}.${QUOTE}` },
        { topic: "Incident 7", content: `${V1} acknowledged by ${DANA}.\n\n\`\`\` quote\n\n\`\`\`` },
      ],
    },
    {
      name: "v1: resolved by someone",
      payload: fixture("pagerduty", "v1_resolve"),
      topic: "Incident 7",
      content: `${V1} resolved by ${DANA}.${QUOTE}`,
    },
    {
      name: "v1: resolved automatically",
      payload: fixture("pagerduty", "v1_auto_resolve"),
      topic: "Incident 7",
      content: `${V1} resolved.\n\n\`\`\` quote\nauto-resolved by monitor\n\`\`\``,
    },
    {
      name: "v1: unacknowledged, escalated and delegated",
      payload: fixture("pagerduty", "v1_unacknowledge_escalate_delegate"),
      messages: [
        { topic: "Incident 7", content: `${V1} unacknowledged by [Checkout API](${B}/services/PIL5CUQ) (assigned to ${DANA}).${QUOTE}` },
        { topic: "Incident 7", content: `${V1} escalated by ${LEE}.${QUOTE}` },
        { topic: "Incident 7", content: `${V1} delineated by nobody.${QUOTE}` },
      ],
    },
    {
      name: "v2: triggered",
      payload: fixture("pagerduty", "v2_trigger"),
      topic: "Incident 33",
      content: `${V2} triggered by [Payments DB](${B}/services/PN49J75) (assigned to ${RAE}).${QUOTE}`,
    },
    {
      name: "v2: triggered without an assignee",
      payload: fixture("pagerduty", "v2_trigger_without_assignee"),
      topic: "Incident 33",
      content: `${V2} triggered by [Payments DB](${B}/services/PN49J75) (assigned to nobody).${QUOTE}`,
    },
    { name: "v2: acknowledged", payload: fixture("pagerduty", "v2_acknowledge"), topic: "Incident 33", content: `${V2} acknowledged by ${RAE}.${QUOTE}` },
    { name: "v2: resolved", payload: fixture("pagerduty", "v2_resolve"), topic: "Incident 33", content: `${V2} resolved by ${RAE}.${QUOTE}` },
    { name: "v2: assigned", payload: fixture("pagerduty", "v2_assign"), topic: "Incident 33", content: `${V2} assigned to ${RAE}.${QUOTE}` },
    {
      name: "v3: triggered",
      payload: fixture("pagerduty", "v3_triggered"),
      topic: V3_TOPIC,
      content: `${V3} triggered by [Databases](${B}/services/PA2P440) (assigned to ${KIM}).`,
    },
    { name: "v3: acknowledged", payload: fixture("pagerduty", "v3_acknowledged"), topic: V3_TOPIC, content: `${V3} acknowledged by ${KIM}.` },
    {
      name: "v3: unacknowledged",
      payload: fixture("pagerduty", "v3_unacknowledged"),
      topic: V3_TOPIC,
      content: `${V3} unacknowledged by [Databases](${B}/services/PA2P440) (assigned to ${KIM}).`,
    },
    { name: "v3: resolved by someone", payload: fixture("pagerduty", "v3_resolved"), topic: V3_TOPIC, content: `${V3} resolved by ${KIM}.` },
    { name: "v3: resolved without an agent", payload: fixture("pagerduty", "v3_resolved_without_agent"), topic: V3_TOPIC, content: `${V3} resolved.` },
    { name: "v3: reassigned", payload: fixture("pagerduty", "v3_reassigned"), topic: V3_TOPIC, content: `${V3} reassigned to ${KIM}.` },
    { name: "v1: an unsupported event", payload: fixture("pagerduty", "v1_unsupported"), ignored: { unsupportedEvent: "incident.annotate" } },
    { name: "v2: an unsupported event", payload: fixture("pagerduty", "v2_unsupported"), ignored: { unsupportedEvent: "incident.custom" } },
    { name: "v3: an unsupported event", payload: fixture("pagerduty", "v3_unsupported"), ignored: { unsupportedEvent: "incident.priority_updated" } },
    {
      name: "only_events filters by the action",
      payload: fixture("pagerduty", "v3_acknowledged"),
      query: { only_events: '["triggered"]' },
      ignored: true,
    },
  ]);

  it("the unsupported-event answer names PagerDuty as Zulip's does", async () => {
    const res = await h.post("pagerduty", fixture("pagerduty", "v3_unsupported"));
    expect(res.body.msg).toBe("The 'incident.priority_updated' event isn't currently supported by the PagerDuty webhook; ignoring");
  });

  it("a v3 event without the incident's URL is a 400, and nothing is posted", async () => {
    const before = (await h.newest())?.id ?? 0;
    const payload = fixture("pagerduty", "v3_triggered") as { event: { data: Record<string, unknown> } };
    delete payload.event.data.html_url;
    const res = await h.post("pagerduty", payload);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: "error", msg: "payload['event']['data']['html_url'] is missing" });
    expect(await h.since(before)).toEqual([]);
  });
});
