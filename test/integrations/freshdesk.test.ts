import { describe, expect, it } from "vitest";
import { basicAuth } from "../support/auth.js";
import { CHANNEL, fixture, itPosts, useWebhookHarness } from "./support.js";

/** Zulip's freshdesk integration: new tickets, notes, and status and priority changes. */
const h = useWebhookHarness();
const BOB = "Requester ☃ Bob <bob@example.com>";
const TICKET_11 = "[ticket #11](https://acme.freshdesk.com/helpdesk/tickets/11)";

describe("freshdesk", () => {
  itPosts(h, "freshdesk", [
    {
      name: "a new ticket, its HTML description quoted as Markdown",
      payload: fixture("freshdesk", "ticket_created"),
      topic: "#11: Printer on fire ☃",
      content: `${BOB} created ${TICKET_11}:\n\n\`\`\` quote\nThe printer on floor 3 is on fire ☃.\n\`\`\`\n\n* **Type**: Incident\n* **Priority**: High\n* **Status**: Pending`,
    },
    {
      name: "a new ticket with an inline image, wrapped at 78 columns",
      payload: fixture("freshdesk", "inline_images"),
      topic: "#12: Not enough ☃ guinea pigs",
      content:
        `${BOB} created [ticket #12](https://acme.freshdesk.com/helpdesk/tickets/12):\n\n\`\`\` quote\n` +
        "There are too many cat pictures on the internet ☃. We need more guinea pigs.\nExhibit 1:\n\n  \n\n" +
        "[guinea_pig.png](https://cdn.example.com/attachments/12744808/original/guinea_pig.png)\n```\n\n* **Type**: Problem\n* **Priority**: Urgent\n* **Status**: Open",
    },
    {
      name: "a new ticket with links, emphasis and line breaks",
      payload: fixture("freshdesk", "rich_description"),
      topic: "#13: Links",
      content:
        `${BOB} created [ticket #13](https://acme.freshdesk.com/helpdesk/tickets/11):\n\n\`\`\` quote\nSee [the **status** page](https://status.example.com/) & _retry_.\n\nLine one  \nLine two\n\`\`\`\n\n` +
        "* **Type**: Incident\n* **Priority**: High\n* **Status**: Pending",
    },
    {
      name: "a status change",
      payload: fixture("freshdesk", "status_changed"),
      topic: "#11: Printer on fire ☃",
      content: `${BOB} updated ${TICKET_11}:\n\n* **Status**: Resolved -> Waiting on Customer`,
    },
    {
      name: "a priority change",
      payload: fixture("freshdesk", "priority_changed"),
      topic: "#11: Printer on fire ☃",
      content: `${BOB} updated ${TICKET_11}:\n\n* **Priority**: High -> Low`,
    },
    {
      name: "a status Zulip has no name for is its number",
      payload: fixture("freshdesk", "status_changed_custom"),
      topic: "#11: Printer on fire ☃",
      content: `${BOB} updated ${TICKET_11}:\n\n* **Status**: Open -> 12`,
    },
    {
      name: "a private note",
      payload: fixture("freshdesk", "private_note"),
      topic: "#11: Printer on fire ☃",
      content: `${BOB} added a private note to ${TICKET_11}.`,
    },
    {
      name: "a public note",
      payload: fixture("freshdesk", "public_note"),
      topic: "#11: Printer on fire ☃",
      content: `${BOB} added a public note to ${TICKET_11}.`,
    },
    { name: "other events are not posted", payload: fixture("freshdesk", "unknown_event"), ignored: true },
  ]);

  it("authenticates with HTTP Basic, as Freshdesk sends it", async () => {
    const before = (await h.newest())?.id ?? 0;
    const res = await fetch(`${h.t.baseUrl}/api/v1/external/freshdesk?stream=${CHANNEL}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: basicAuth(h.bot().email, h.bot().apiKey) },
      body: JSON.stringify(fixture("freshdesk", "public_note")),
    });
    expect(res.status).toBe(200);
    expect((await h.since(before)).map((m) => m.content)).toEqual([`${BOB} added a public note to ${TICKET_11}.`]);
  });

  it("a ticket without a field the message needs is a 400, nothing posted", async () => {
    const before = (await h.newest())?.id ?? 0;
    expect(await h.post("freshdesk", fixture("freshdesk", "missing_requester_email"))).toMatchObject({
      status: 400,
      body: { result: "error", msg: "payload['freshdesk_webhook']['requester_email'] is missing" },
    });
    expect(await h.since(before)).toEqual([]);
  });
});
