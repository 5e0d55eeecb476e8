import { beforeAll, describe, expect, it } from "vitest";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

/**
 * Issue 17: can_access_all_users_group is enforced. A guest restricted by it knows only the users
 * who share a channel or a direct message with him; everyone else is Zulip's "Unknown user".
 */
const t = useTestServer();

let prosperoId = 0;
let botId = 0;
const restricted = async <T>(fn: () => Promise<T>) => t.withRealmSettings({ can_access_all_users_group: await t.systemGroupId("role:members") }, fn);

beforeAll(async () => {
  prosperoId = (await t.user("prospero")).id;
  // Prospero leaves Verona, the only channel the guest Polonius shares with him.
  expectSuccess(await t.delete("prospero", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify(["Verona"]) }));
  botId = expectSuccess(await t.post("prospero", "/api/v1/bots", { full_name: "Tempest bot", short_name: "tempest" })).user_id;
  expectSuccess(await t.delete("prospero", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify(["Verona"]), principals: JSON.stringify([botId]) }));
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

  it("gives access once they exchanged a direct message", async () => {
    await restricted(async () => {
      expectSuccess(await t.post("prospero", "/api/v1/messages", { type: "direct", to: JSON.stringify([(await t.user("polonius")).id]), content: "hello" }));
      expect(expectSuccess(await t.get("polonius", `/api/v1/users/${prosperoId}`)).user.full_name).toBe("Prospero the Duke");
    });
  });
});
