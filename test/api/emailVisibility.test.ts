import { describe, expect, it } from "vitest";
import { expectSuccess, useTestServer } from "../support/testApp.js";
import { defined } from "../../src/util/defined.js";

/**
 * Issue 17: email_address_visibility hides the real address from everyone it does not name, in
 * every payload (email, delivery_email, sender_email) and every lookup by email.
 */
const t = useTestServer();

const TARGET = "prospero";
const REAL = "prospero@zulip.com";
const OBSERVERS = ["prospero", "desdemona", "iago", "shiva", "hamlet", "polonius"] as const;
type Observer = (typeof OBSERVERS)[number];

/** Who may see the real address per level (Zulip: 1 everyone, 2 members, 3 admins, 4 nobody, 5 moderators). */
const MAY_SEE: Record<number, readonly Observer[]> = {
  1: OBSERVERS,
  2: ["prospero", "desdemona", "iago", "shiva", "hamlet"],
  3: ["prospero", "desdemona", "iago"],
  4: ["prospero"],
  5: ["prospero", "desdemona", "iago", "shiva"],
};

async function setVisibility(level: number): Promise<void> {
  expectSuccess(await t.patch(TARGET, "/api/v1/settings", { email_address_visibility: level }));
}

describe("email_address_visibility", () => {
  for (const level of [1, 2, 3, 4, 5]) {
    it(`level ${level}: email, delivery_email, sender_email and lookups by email, for every observer`, async () => {
      await setVisibility(level);
      const target = await t.user(TARGET);
      const apiEmail = level === 1 ? REAL : `user${target.id}@localhost`;
      expect(target.email).toBe(apiEmail);
      const sent = expectSuccess(await t.post(TARGET, "/api/v1/messages", { type: "stream", to: "Verona", topic: `visibility ${level}`, content: "hi" }));

      for (const observer of OBSERVERS) {
        const sees = defined(MAY_SEE[level], "MAY_SEE[level]").includes(observer);
        const what = `${observer} at level ${level}`;
        const byId = expectSuccess(await t.get(observer, `/api/v1/users/${target.id}`)).user;
        expect({ email: byId.email, delivery_email: byId.delivery_email }, what).toEqual({ email: apiEmail, delivery_email: sees ? REAL : null });
        const listed = expectSuccess(await t.get(observer, "/api/v1/users")).members.find((u: any) => u.user_id === target.id);
        expect({ email: listed.email, delivery_email: listed.delivery_email }, what).toEqual({ email: apiEmail, delivery_email: sees ? REAL : null });
        const registered = expectSuccess(await t.post(observer, "/api/v1/register", { fetch_event_types: JSON.stringify(["realm_user"]) }));
        const inRegister = registered.realm_users.find((u: any) => u.user_id === target.id);
        expect(inRegister.email, what).toBe(apiEmail);
        expect(JSON.stringify(registered.realm_users).includes(REAL), what).toBe(sees);

        // The real address finds the user only for those who may see it; the API email for all.
        expect((await t.get(observer, `/api/v1/users/${REAL}`)).status, what).toBe(sees ? 200 : 400);
        expect((await t.get(observer, `/api/v1/users/${apiEmail}`)).status, what).toBe(200);
        const narrow = JSON.stringify([{ operator: "sender", operand: REAL }]);
        expect((await t.get(observer, "/api/v1/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow })).status, what).toBe(sees ? 200 : 400);

        if (observer !== "polonius") {
          const fetched = expectSuccess(await t.get(observer, `/api/v1/messages/${sent.id}`)).message;
          expect(fetched.sender_email, what).toBe(apiEmail);
        }
      }
      // A direct message to the hidden address does not reach anyone (nor tell that it exists).
      const dm = await t.post("hamlet", "/api/v1/messages", { type: "direct", to: JSON.stringify([REAL]), content: "who?" });
      expect(dm.status).toBe(defined(MAY_SEE[level], "MAY_SEE[level]").includes("hamlet") ? 200 : 400);
    });
  }

  it("tells everyone the new API email when the address becomes public or hidden", async () => {
    await setVisibility(1);
    const target = await t.user(TARGET);
    const { events } = await t.captureEvents(() => setVisibility(4));
    const update = events.find((e) => e.event.type === "realm_user" && "new_email" in (e.event as any).person);
    expect(update?.event).toEqual({ type: "realm_user", op: "update", person: { user_id: target.id, new_email: `user${target.id}@localhost` } });
    expect(update?.users).toEqual(expect.arrayContaining([(await t.user("hamlet")).id, (await t.user("polonius")).id, target.id]));
    // Between hidden levels the API email stays; back to everyone, the real address returns.
    expect((await t.captureEvents(() => setVisibility(3))).events.some((e) => "new_email" in ((e.event as any).person ?? {}))).toBe(false);
    await setVisibility(1);
    expect((await t.user(TARGET)).email).toBe(REAL);
    expectSuccess(await t.get("hamlet", `/api/v1/users/${REAL}`));
  });
});
