import { describe, expect, it } from "vitest";
import { basicAuth } from "../support/auth.js";
import { CHANNEL, fixture, itPosts, useWebhookHarness } from "./support.js";

/** Zulip's zendesk integration: a trigger's JSON (message, or every field), or the older ticket_title/ticket_id/message parameters. */
const h = useWebhookHarness();

/** As Zendesk sends it: HTTP Basic with the bot's email and API key, no api_key in the URL. */
async function zendesk(query: Record<string, string>, body: string, contentType: string) {
  const res = await fetch(`${h.t.baseUrl}/api/v1/external/zendesk?${new URLSearchParams({ stream: CHANNEL, ...query })}`, {
    method: "POST",
    headers: { "Content-Type": contentType, Authorization: basicAuth(h.bot().email, h.bot().apiKey) },
    body,
  });
  return { status: res.status, body: await res.json() };
}

describe("zendesk", () => {
  itPosts(h, "zendesk", [
    {
      name: "a message, under #id: title",
      payload: fixture("zendesk", "ticket_with_message"),
      topic: "#7: SAMPLE TICKET: Problems changing address",
      content: "### Ticket #7\n\n**Status:** Open | **Priority:** Normal\n\n[View Ticket](https://acme.zendesk.com/agent/tickets/7)",
    },
    {
      name: "the payload's topic wins",
      payload: fixture("zendesk", "message_and_topic"),
      topic: "my_zendesk_topic",
      content: "New comment:\n> It is better\n* here",
    },
    { name: "without a ticket, the topic is zendesk", payload: fixture("zendesk", "message_only"), topic: "zendesk", content: "A ticket was solved." },
    {
      name: "without a message, every non-empty field as a list",
      payload: fixture("zendesk", "no_message"),
      topic: "#7: Hello world",
      content:
        "* **ticket_id**: 7\n* **ticket_title**: Hello world\n* **ticket_status**: Open\n* **assignee_full_name**: None\n* **tags**: billing help\n* **link**: https://acme.zendesk.com/agent/tickets/7",
    },
    {
      name: "a long title is cut to 60 characters",
      payload: fixture("zendesk", "long_title"),
      topic: "#7: SAMPLE TICKET: Problems changing address for the cust...",
      content: "x",
    },
  ]);

  it("HTTP Basic and form parameters, as Zendesk's URL targets send them", async () => {
    const before = (await h.newest())?.id ?? 0;
    const form = new URLSearchParams({ ticket_title: "Test ticket" + "!".repeat(80), ticket_id: "4", message: "some message" }).toString();
    expect(await zendesk({}, form, "application/x-www-form-urlencoded")).toEqual({ status: 200, body: { result: "success", msg: "" } });
    expect(await zendesk({ ticket_title: "Query ticket", ticket_id: "5", message: "from the query" }, "", "text/plain")).toEqual({
      status: 200,
      body: { result: "success", msg: "" },
    });
    expect((await h.since(before)).map(({ topic, content }) => ({ topic, content }))).toEqual([
      { topic: "#4: Test ticket" + "!".repeat(42) + "...", content: "some message" },
      { topic: "#5: Query ticket", content: "from the query" },
    ]);
  });

  it("a parameter missing, or a ticket id that is not a string, is a 400, nothing posted", async () => {
    const before = (await h.newest())?.id ?? 0;
    const form = new URLSearchParams({ ticket_title: "Test ticket", ticket_id: "4" }).toString();
    expect(await zendesk({}, form, "application/x-www-form-urlencoded")).toMatchObject({ status: 400, body: { msg: "Missing 'message' argument" } });
    expect(await zendesk({}, JSON.stringify({ ticket_id: 7, ticket_title: "t", message: "m" }), "application/json")).toMatchObject({
      status: 400,
      body: { msg: "payload['ticket_id'] is not a string" },
    });
    expect(await zendesk({}, "{oops", "application/json")).toMatchObject({ status: 400, body: { msg: "Malformed JSON" } });
    expect(await h.since(before)).toEqual([]);
  });
});
