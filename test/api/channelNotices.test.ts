import { describe, expect, it } from "vitest";
import { makeChannel } from "../support/factories.js";
import { seedIds } from "../support/seed.js";
import { expectSuccess, type Params, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";

/** The Notification Bot's notices about channels, with Zulip 10's texts. */
const t = useTestServer();
const SUBS = "/api/v1/users/me/subscriptions";
const BOT = "notification-bot@zulip.com";

const createChannel = (who: string, name: string, extra: Params = {}) =>
  makeChannel(t, { by: who, name, description: (extra.description as string | undefined) ?? "", extra });

async function messagesIn(who: string, narrow: Array<{ operator: string; operand: unknown }>): Promise<any[]> {
  const params = { anchor: "newest", num_before: 50, num_after: 0, apply_markdown: false, narrow: JSON.stringify(narrow) };
  return expectSuccess(await t.get(who, "/api/v1/messages", params)).messages;
}
const topicOf = (channel: number, topic: string) => [
  { operator: "channel", operand: channel },
  { operator: "topic", operand: topic },
];

describe("channel creation notices", () => {
  it("posts the creation notice in the new channel, read by the creator, and announces it when asked", async () => {
    const id = await createChannel("hamlet", "notice pub", { description: "About *it*", announce: true });
    const [created] = await messagesIn("hamlet", topicOf(id, "channel events"));
    expect(created).toMatchObject({
      sender_email: BOT,
      content: "**Public** channel created by @_**King Hamlet|10**. **Description:**\n```` quote\nAbout *it*\n````",
    });
    expect(created.flags).toContain("read");

    const announced = (await messagesIn("cordelia", topicOf(1, "new channels"))).at(-1);
    expect(announced).toMatchObject({ sender_email: BOT, content: "@_**King Hamlet|10** created a new channel #**notice pub**." });
    expect(announced.flags).not.toContain("read");
    const hamletsCopy = (await messagesIn("hamlet", topicOf(1, "new channels"))).at(-1);
    expect(hamletsCopy.id).toBe(announced.id);
    expect(hamletsCopy.flags).toContain("read");
  });

  it("names the privacy policy, shows a missing description, and announces only with announce", async () => {
    const before = (await messagesIn("iago", topicOf(1, "new channels"))).length;
    const id = await createChannel("iago", "notice secret", { invite_only: true });
    const [created] = await messagesIn("iago", topicOf(id, "channel events"));
    expect(created.content).toBe("**Private, protected history** channel created by @_**Iago|11**. **Description:**\n```` quote\n*No description.*\n````");
    expect(await messagesIn("iago", topicOf(1, "new channels"))).toHaveLength(before);

    const shared = await createChannel("iago", "notice shared", { invite_only: true, history_public_to_subscribers: true });
    expect((await messagesIn("iago", topicOf(shared, "channel events")))[0].content).toMatch(/^\*\*Private, shared history\*\* channel created by /);
  });

  it("gives each of several channels created in one request its own notice, read by the creator only, and its events", async () => {
    const hamlet = await t.user("hamlet");
    const iago = await t.user("iago");
    const queue = expectSuccess(await t.post("hamlet", "/api/v1/register", { event_types: JSON.stringify(["message", "stream", "subscription"]) }));
    const names = ["notice batch a", "notice batch b", "notice batch c"];
    const descriptions = ["First one", "", "Ask @**King Hamlet** about #**Verona**"];
    expectSuccess(
      await t.post("iago", SUBS, { subscriptions: names.map((name, i) => ({ name, description: descriptions[i] })), principals: [iago.id, hamlet.id] }),
    );
    const ids = await Promise.all(
      names.map(async (name) => Number((await t.ctx.db.kysely.selectFrom("streams").select("id").where("name", "=", name).executeTakeFirstOrThrow()).id)),
    );
    const quotedText = ["First one", "*No description.*", "Ask @**King Hamlet** about #**Verona**"];
    const notices: number[] = [];
    for (const [i, id] of ids.entries()) {
      const iagos = await messagesIn("iago", topicOf(id, "channel events"));
      const hamlets = await messagesIn("hamlet", topicOf(id, "channel events"));
      expect(iagos).toHaveLength(1);
      expect(iagos[0]).toMatchObject({
        sender_email: BOT,
        content: `**Public** channel created by @_**Iago|11**. **Description:**\n\`\`\`\` quote\n${quotedText[i]}\n\`\`\`\``,
      });
      expect(iagos[0].flags).toContain("read");
      expect(hamlets.map((m) => m.id)).toEqual([iagos[0].id]);
      expect(hamlets[0].flags).not.toContain("read");
      notices.push(iagos[0].id);
    }
    expect(new Set(notices).size).toBe(3);
    // As rendered one at a time: the mention and the channel link resolve in the third notice only.
    const rendered = expectSuccess(await t.get("hamlet", `/api/v1/messages/${notices[2]}`, {})).message.content;
    expect(rendered).toContain(`data-user-id="${hamlet.id}"`);
    expect(rendered).toContain('class="stream"');

    const { events } = expectSuccess(await t.get("hamlet", "/api/v1/events", { queue_id: queue.queue_id, last_event_id: "-1", dont_block: "true" }));
    const created = events.filter((e: any) => e.type === "stream" && e.op === "create").flatMap((e: any) => e.streams.map((s: any) => s.stream_id));
    expect(created).toEqual(ids);
    const added = events.filter((e: any) => e.type === "subscription" && e.op === "add").flatMap((e: any) => e.subscriptions.map((s: any) => s.stream_id));
    expect([...added].sort()).toEqual([...ids].sort());
    const firsts = events.filter((e: any) => e.type === "stream" && e.op === "update" && e.property === "first_message_id");
    expect(firsts.map((e: any) => [e.stream_id, e.value])).toEqual(ids.map((id, i) => [id, notices[i]]));
    const messages = events.filter((e: any) => e.type === "message");
    expect(messages.map((e: any) => e.message.id)).toEqual(notices);
    expect(messages.map((e: any) => e.flags)).toEqual([[], [], expect.not.arrayContaining(["read"])]);
  });

  it("announces several channels in one message", async () => {
    expectSuccess(await t.post("iago", SUBS, { subscriptions: [{ name: "notice a" }, { name: "notice b" }], announce: true }));
    const announced = (await messagesIn("iago", topicOf(1, "new channels"))).at(-1);
    expect(announced.content).toBe("@_**Iago|11** created the following channels: #**notice a**, #**notice b**.");
  });
});

describe("subscribed-you notices", () => {
  it("tells others they were subscribed to existing channels, never the actor or for new channels", async () => {
    expectSuccess(await t.post("iago", SUBS, { subscriptions: [{ name: "Scotland" }, { name: "notice new" }], principals: seedIds("cordelia", "iago") }));
    const dms = await messagesIn("cordelia", [{ operator: "dm", operand: [BOT] }]);
    expect(dms.at(-1)).toMatchObject({ sender_email: BOT, content: "@_**Iago|11** subscribed you to #**Scotland**." });
    expect(dms.at(-1).flags).not.toContain("read");
    expect(await messagesIn("iago", [{ operator: "dm", operand: [BOT] }])).toEqual([]);

    expectSuccess(await t.post("iago", SUBS, { subscriptions: [{ name: "Venice" }, { name: "Denmark" }], principals: [8] }));
    const latest = (await messagesIn("cordelia", [{ operator: "dm", operand: [BOT] }])).at(-1);
    expect(latest.content).toBe("@_**Iago|11** subscribed you to the following channels:\n\n* #**Denmark**\n* #**Venice**\n");
  });
});

describe("subscribed-you notices to several users at once", () => {
  it("gives each user their own direct message and event, with the channels that are new to them", async () => {
    const names = ["othello", "prospero", "aaron"];
    const users = await Promise.all(names.map((n) => t.user(n)));
    // prospero is already in "notice many b": his notice names only "notice many a".
    await createChannel("iago", "notice many a");
    await createChannel("iago", "notice many b");
    expectSuccess(await t.post("iago", SUBS, { subscriptions: [{ name: "notice many b" }], principals: [at(users, 1).id] }));
    const queues = await Promise.all(names.map(async (n) => expectSuccess(await t.post(n, "/api/v1/register", { event_types: JSON.stringify(["message"]) }))));
    expectSuccess(await t.post("iago", SUBS, { subscriptions: [{ name: "notice many a" }, { name: "notice many b" }], principals: users.map((u) => u.id) }));

    const latest = await Promise.all(names.map(async (n) => (await messagesIn(n, [{ operator: "dm", operand: [BOT] }])).at(-1)));
    expect(latest.map((m) => m.content)).toEqual([
      "@_**Iago|11** subscribed you to the following channels:\n\n* #**notice many a**\n* #**notice many b**\n",
      "@_**Iago|11** subscribed you to #**notice many a**.",
      "@_**Iago|11** subscribed you to the following channels:\n\n* #**notice many a**\n* #**notice many b**\n",
    ]);
    expect(new Set(latest.map((m) => m.id)).size).toBe(3);
    latest.forEach((m, i) => expect(m.display_recipient.map((r: { email: string }) => r.email).sort()).toEqual([BOT, at(users, i).email].sort()));
    for (const [i, n] of names.entries()) {
      const { events } = expectSuccess(await t.get(n, "/api/v1/events", { queue_id: queues[i].queue_id, last_event_id: "-1", dont_block: "true" }));
      const messageEvents = events.filter((e: { type: string; message?: { sender_email: string } }) => e.type === "message" && e.message?.sender_email === BOT);
      expect(messageEvents.map((e: { message: { id: number } }) => e.message.id)).toEqual([latest[i].id]);
    }
  });
});

describe("channel events notices", () => {
  it("records renames and description changes as Zulip words them", async () => {
    const id = await createChannel("iago", "notice old", { description: "first" });
    expectSuccess(await t.patch("iago", `/api/v1/streams/${id}`, { new_name: "notice renamed", description: "" }));
    const notices = (await messagesIn("iago", topicOf(id, "channel events"))).map((m) => m.content);
    expect(notices.slice(1)).toEqual([
      "@_**Iago|11** changed the description for this channel.\n\n* **Old description:**\n```` quote\nfirst\n````\n* **New description:**\n```` quote\n*No description.*\n````",
      "@_**Iago|11** renamed channel **notice old** to **notice renamed**.",
    ]);
  });

  it("records archiving, unread for nobody, and unarchiving", async () => {
    const id = await createChannel("iago", "notice archive", { principals: seedIds("iago", "hamlet") });
    expectSuccess(await t.delete("iago", `/api/v1/streams/${id}`));
    const archived = (await messagesIn("hamlet", topicOf(id, "channel events"))).at(-1);
    expect(archived).toMatchObject({ sender_email: BOT, content: "Channel notice archive has been archived." });
    expect(archived.flags).toContain("read");

    expectSuccess(await t.patch("iago", `/api/v1/streams/${id}`, { is_archived: false }));
    const back = (await messagesIn("hamlet", topicOf(id, "channel events"))).at(-1);
    expect(back.content).toBe("Channel notice archive un-archived.");
    expect(back.flags).not.toContain("read");
  });
});
