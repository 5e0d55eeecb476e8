import { beforeAll, describe, expect, it } from "vitest";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

/**
 * Issue 17: can_access_all_users_group is enforced. A guest restricted by it knows only the users
 * who share a channel or a direct message with him; everyone else is Zulip's "Unknown user".
 */
const t = useTestServer();

let prosperoId = 0;
let botId = 0;
let hamletId = 0;
const restricted = async <T>(fn: () => Promise<T>) => t.withRealmSettings({ can_access_all_users_group: await t.systemGroupId("role:members") }, fn);

beforeAll(async () => {
  prosperoId = (await t.user("prospero")).id;
  hamletId = (await t.user("hamlet")).id;
  // Prospero leaves Verona, the only channel the guest Polonius shares with him.
  expectSuccess(await t.delete("prospero", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify(["Verona"]) }));
  botId = expectSuccess(await t.post("prospero", "/api/v1/bots", { full_name: "Tempest bot", short_name: "tempest" })).user_id;
  expectSuccess(
    await t.delete("prospero", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify(["Verona"]), principals: JSON.stringify([botId]) }),
  );
});

const unknownUser = (id: number) => ({
  user_id: id,
  email: `user${id}@localhost`,
  delivery_email: null,
  full_name: "Unknown user",
  is_active: true,
  is_bot: false,
  is_admin: false,
  is_guest: false,
  role: 400,
  date_joined: expect.any(String),
  avatar_url: expect.stringContaining("unknown-user-avatar"),
});

describe("can_access_all_users_group", () => {
  it("lets everyone access everyone by default", async () => {
    const members = expectSuccess(await t.get("polonius", "/api/v1/users")).members;
    expect(members.find((u: any) => u.user_id === prosperoId).full_name).toBe("Prospero from The Tempest");
    expectSuccess(await t.get("polonius", `/api/v1/users/${prosperoId}`));
  });

  it("shows a restricted guest the users he shares nothing with as Unknown user, in GET /users and /register", async () => {
    await restricted(async () => {
      const members = expectSuccess(await t.get("polonius", "/api/v1/users")).members;
      expect(members.find((u: any) => u.user_id === prosperoId)).toMatchObject(unknownUser(prosperoId));
      expect(members.find((u: any) => u.email === "hamlet@zulip.com").full_name).toBe("King Hamlet");
      // Every bot is accessible, whoever owns it.
      expect(members.find((u: any) => u.user_id === botId).full_name).toBe("Tempest bot");
      expect(JSON.stringify(members)).not.toContain("Prospero");

      const state = expectSuccess(await t.post("polonius", "/api/v1/register", { fetch_event_types: JSON.stringify(["realm_user"]) }));
      expect(state.realm_users.find((u: any) => u.user_id === prosperoId)).toMatchObject(unknownUser(prosperoId));
      expect(JSON.stringify(state)).not.toContain("Prospero");

      // Members are not restricted.
      const seenByHamlet = expectSuccess(await t.get("hamlet", "/api/v1/users")).members;
      expect(seenByHamlet.find((u: any) => u.user_id === prosperoId).full_name).toBe("Prospero from The Tempest");
    });
  });

  it("refuses a restricted guest the account of a user he may not access, by id and by email", async () => {
    await restricted(async () => {
      expectError(await t.get("polonius", `/api/v1/users/${prosperoId}`), 400, "Insufficient permission");
      expectError(await t.get("polonius", "/api/v1/users/prospero@zulip.com"), 400, "Insufficient permission");
      expectSuccess(await t.get("polonius", `/api/v1/users/${(await t.user("hamlet")).id}`));
      expectSuccess(await t.get("hamlet", `/api/v1/users/${prosperoId}`));
    });
  });

  it("sends events about a user only to those who may access him", async () => {
    await restricted(async () => {
      const polonius = (await t.user("polonius")).id;
      const hamlet = (await t.user("hamlet")).id;
      const { events } = await t.captureEvents(async () => {
        expectSuccess(await t.patch("prospero", "/api/v1/settings", { full_name: "Prospero the Duke" }));
        expectSuccess(await t.patch("prospero", "/api/v1/settings", { timezone: "Europe/Rome" }));
        expectSuccess(await t.patch("iago", `/api/v1/users/${prosperoId}`, { role: 300 }));
      });
      const updates = events.filter((e) => e.event.type === "realm_user");
      expect(updates.length).toBeGreaterThanOrEqual(3);
      for (const update of updates) {
        expect(update.users).toContain(hamlet);
        expect(update.users).not.toContain(polonius);
      }
      // A new user shares Verona, the default channel, with the guest: the guest hears of him.
      const { events: added } = await t.captureEvents(async () =>
        expectSuccess(await t.post("iago", "/api/v1/users", { email: "miranda@zulip.com", password: "miranda-secret", full_name: "Miranda" })),
      );
      expect(added.find((e) => e.event.type === "realm_user" && (e.event as any).op === "add")?.users).toContain(polonius);
    });
  });

  it("shows a sender the guest may not access as Unknown user in message payloads and events (Zulip's can_access_sender)", async () => {
    await restricted(async () => {
      const polonius = (await t.user("polonius")).id;
      const queue = expectSuccess(
        await t.post("polonius", "/api/v1/register", { event_types: JSON.stringify(["message"]), client_gravatar: true, apply_markdown: false }),
      ).queue_id;
      // Prospero, not subscribed, may post to the public channel Verona, where the guest is.
      const { result, events } = await t.captureEvents(async () =>
        expectSuccess(
          await t.post("prospero", "/api/v1/messages", { type: "stream", to: "Verona", topic: "from outside", content: "a word from the outside" }),
        ),
      );
      const id = result.id as number;
      const hidden = {
        sender_id: prosperoId,
        sender_full_name: "Unknown user",
        sender_email: `user${prosperoId}@localhost`,
        avatar_url: expect.stringContaining("unknown-user-avatar"),
      };
      const toGuest = events.find((e) => e.event.type === "message" && e.users.includes(polonius))!.event as any;
      expect(toGuest.message).toMatchObject(hidden);
      const toHamlet = events.find((e) => e.event.type === "message" && e.users.includes(hamletId))?.event as any;
      expect(toHamlet?.message.sender_full_name).toBe("Prospero the Duke");
      expect(JSON.stringify(toGuest)).not.toContain("Prospero");

      // As his client receives it (client_gravatar: the unknown-user avatar stays).
      const delivered = expectSuccess(await t.get("polonius", "/api/v1/events", { queue_id: queue, last_event_id: -1, dont_block: true })).events.filter(
        (e: any) => e.type === "message",
      );
      expect(delivered.map((e: any) => e.message)).toEqual([expect.objectContaining({ ...hidden, content: "a word from the outside" })]);
      expect(expectSuccess(await t.get("polonius", `/api/v1/messages/${id}`)).message).toMatchObject(hidden);
      const narrow = JSON.stringify([
        { operator: "channel", operand: "Verona" },
        { operator: "topic", operand: "from outside" },
      ]);
      const fetched = expectSuccess(await t.get("polonius", "/api/v1/messages", { anchor: "newest", num_before: 5, num_after: 0, narrow })).messages;
      expect(fetched).toEqual([expect.objectContaining(hidden)]);
      // Others, and the guest once the organization lets him access everyone, see the sender.
      expect(expectSuccess(await t.get("hamlet", `/api/v1/messages/${id}`)).message.sender_full_name).toBe("Prospero the Duke");
    });
    const id = expectSuccess(await t.get("polonius", "/api/v1/messages", { anchor: "newest", num_before: 1, num_after: 0 })).messages[0];
    expect(id.sender_full_name).toBe("Prospero the Duke");
  });

  it("sends realm_user add when a subscription gives a guest access to a user, and remove when it takes it away", async () => {
    await restricted(async () => {
      const polonius = (await t.user("polonius")).id;
      const realmUserEvents = (events: Array<{ event: any; users: number[] }>) =>
        events.filter((e) => e.event.type === "realm_user" && e.users.includes(polonius)).map((e) => ({ op: e.event.op, person: e.event.person }));
      const { events: joined } = await t.captureEvents(async () =>
        expectSuccess(await t.post("prospero", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "Verona" }]) })),
      );
      expect(realmUserEvents(joined)).toEqual([{ op: "add", person: expect.objectContaining({ user_id: prosperoId, full_name: "Prospero the Duke" }) }]);
      expectSuccess(await t.get("polonius", `/api/v1/users/${prosperoId}`));

      const { events: left } = await t.captureEvents(async () =>
        expectSuccess(await t.delete("prospero", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify(["Verona"]) })),
      );
      expect(realmUserEvents(left)).toEqual([{ op: "remove", person: { user_id: prosperoId, full_name: "Unknown user" } }]);
      expectError(await t.get("polonius", `/api/v1/users/${prosperoId}`), 400, "Insufficient permission");

      // The guest's own subscription: he hears of the channel's subscribers he did not know.
      const { result: channel } = await t.captureEvents(async () =>
        expectSuccess(await t.post("prospero", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "tempest" }]) })),
      );
      expect(channel).toBeTruthy();
      const { events: guestJoined } = await t.captureEvents(async () =>
        expectSuccess(
          await t.post("iago", "/api/v1/users/me/subscriptions", {
            subscriptions: JSON.stringify([{ name: "tempest" }]),
            principals: JSON.stringify([polonius]),
          }),
        ),
      );
      const added = realmUserEvents(guestJoined);
      expect(added).toContainEqual({ op: "add", person: expect.objectContaining({ user_id: prosperoId, full_name: "Prospero the Duke" }) });
      expect(added.every((e) => e.op === "add")).toBe(true);
      // Iago shares Verona with the guest already: no event about him.
      expect(added.map((e) => e.person.user_id)).not.toContain((await t.user("iago")).id);
      const { events: guestLeft } = await t.captureEvents(async () =>
        expectSuccess(
          await t.delete("iago", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify(["tempest"]), principals: JSON.stringify([polonius]) }),
        ),
      );
      expect(realmUserEvents(guestLeft)).toEqual([{ op: "remove", person: { user_id: prosperoId, full_name: "Unknown user" } }]);
    });
  });

  it("sends a restricted guest Zulip's Unknown user add for a new user he may not access, unless his client declared user_list_incomplete", async () => {
    await restricted(async () => {
      const polonius = (await t.user("polonius")).id;
      expectSuccess(
        await t.delete("iago", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify(["Verona"]), principals: JSON.stringify([polonius]) }),
      );
      const plain = expectSuccess(await t.post("polonius", "/api/v1/register", { event_types: JSON.stringify(["realm_user"]) })).queue_id;
      const incomplete = expectSuccess(
        await t.post("polonius", "/api/v1/register", {
          event_types: JSON.stringify(["realm_user"]),
          client_capabilities: JSON.stringify({ user_list_incomplete: true }),
        }),
      ).queue_id;
      const created = expectSuccess(await t.post("iago", "/api/v1/users", { email: "ariel@zulip.com", password: "ariel-secret", full_name: "Ariel" })).user_id;
      const events = async (queue: string) =>
        expectSuccess(await t.get("polonius", "/api/v1/events", { queue_id: queue, last_event_id: -1, dont_block: true })).events.filter(
          (e: any) => e.type === "realm_user",
        );
      const received = await events(plain);
      expect(received).toEqual([
        expect.objectContaining({
          op: "add",
          person: expect.objectContaining({ user_id: created, full_name: "Unknown user", email: `user${created}@localhost` }),
        }),
      ]);
      expect(JSON.stringify(received)).not.toContain("Ariel");
      expect(await events(incomplete)).toEqual([]);
      // Back in Verona, where Ariel is (a default channel): the guest gets Ariel's real data.
      const { events: rejoined } = await t.captureEvents(async () =>
        expectSuccess(
          await t.post("iago", "/api/v1/users/me/subscriptions", {
            subscriptions: JSON.stringify([{ name: "Verona" }]),
            principals: JSON.stringify([polonius]),
          }),
        ),
      );
      const adds = rejoined.filter((e) => e.event.type === "realm_user" && e.users.includes(polonius)).map((e) => (e.event as any).person);
      expect(adds).toContainEqual(expect.objectContaining({ user_id: created, full_name: "Ariel" }));
    });
  });

  it("gives access once they exchanged a direct message, announced by realm_user add before the message", async () => {
    await restricted(async () => {
      const polonius = (await t.user("polonius")).id;
      const { events } = await t.captureEvents(async () =>
        expectSuccess(await t.post("prospero", "/api/v1/messages", { type: "direct", to: JSON.stringify([polonius]), content: "hello" })),
      );
      const toGuest = events.filter((e) => e.users.includes(polonius)).map((e) => e.event as any);
      expect(toGuest.map((e) => `${e.type}${e.op ? "/" + e.op : ""}`)).toEqual(["realm_user/add", "message"]);
      expect(toGuest[0].person).toMatchObject({ user_id: prosperoId, full_name: "Prospero the Duke" });
      expect(toGuest[1].message.sender_full_name).toBe("Prospero the Duke");
      expect(expectSuccess(await t.get("polonius", `/api/v1/users/${prosperoId}`)).user.full_name).toBe("Prospero the Duke");
    });
  });
  it("sends realm_user remove to a guest who shared only a channel with a user now deactivated, and add at his reactivation", async () => {
    await restricted(async () => {
      const polonius = (await t.user("polonius")).id;
      const aaron = (await t.user("aaron")).id;
      const shiva = (await t.user("shiva")).id;
      // Aaron shares only Verona with the guest; Shiva shares Verona and a direct message.
      expectSuccess(await t.post("shiva", "/api/v1/messages", { type: "direct", to: JSON.stringify([polonius]), content: "a word, Polonius" }));
      const toGuest = (events: Array<{ event: any; users: number[] }>) =>
        events.filter((e) => e.event.type === "realm_user" && e.users.includes(polonius)).map((e) => ({ op: e.event.op, person: e.event.person }));
      const { events: deactivated } = await t.captureEvents(async () => {
        expectSuccess(await t.delete("iago", `/api/v1/users/${aaron}`));
        expectSuccess(await t.delete("iago", `/api/v1/users/${shiva}`));
      });
      expect(toGuest(deactivated)).toEqual([
        { op: "remove", person: { user_id: aaron, full_name: "Unknown user" } },
        { op: "update", person: { user_id: shiva, is_active: false } },
      ]);
      // Members still hear of both deactivations.
      const toHamlet = deactivated.filter((e) => e.event.type === "realm_user" && e.users.includes(hamletId)).map((e) => (e.event as any).op);
      expect(toHamlet).toEqual(["update", "update"]);
      // What the events say is what a new client gets: Aaron unknown, Shiva deactivated.
      const state = expectSuccess(await t.post("polonius", "/api/v1/register", { fetch_event_types: JSON.stringify(["realm_user"]) }));
      expect(state.realm_users.find((u: any) => u.user_id === aaron)).toMatchObject(unknownUser(aaron));
      expect(state.realm_non_active_users.find((u: any) => u.user_id === shiva)).toMatchObject({ is_active: false });

      const { events: reactivated } = await t.captureEvents(async () => {
        expectSuccess(await t.post("iago", `/api/v1/users/${aaron}/reactivate`));
        expectSuccess(await t.post("iago", `/api/v1/users/${shiva}/reactivate`));
      });
      expect(toGuest(reactivated)).toEqual([
        { op: "add", person: expect.objectContaining({ user_id: aaron, full_name: "aaron", is_active: true }) },
        { op: "update", person: { user_id: shiva, is_active: true } },
      ]);
      expectSuccess(await t.get("polonius", `/api/v1/users/${aaron}`));
    });
  });
});
