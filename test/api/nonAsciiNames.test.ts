import { describe, expect, it } from "vitest";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

// Names with non-ASCII capitals: SQLite's own lower() folds ASCII only, so a lookup that folded
// the name in JavaScript never found them on SQLite, not even written exactly.
const t = useTestServer();
const CHANNEL = "Équipe Ünïcode";

describe("channels and people named with non-ASCII capitals", () => {
  it("are found by their exact name, and by a name differing in the case of ASCII letters", async () => {
    expectSuccess(await t.post("hamlet", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: CHANNEL }]) }));
    const { stream_id } = expectSuccess(await t.get("hamlet", "/api/v1/get_stream_id", { stream: CHANNEL }));
    expect(stream_id).toBeGreaterThan(0);
    expect(expectSuccess(await t.get("hamlet", "/api/v1/get_stream_id", { stream: "ÉQUIPE ÜnïCODE" })).stream_id).toBe(stream_id);

    const sent = expectSuccess(await t.post("hamlet", "/api/v1/messages", { type: "stream", to: CHANNEL, topic: "Ärger", content: "bonjour" }));
    const fetched = expectSuccess(await t.get("hamlet", `/api/v1/messages/${sent.id}`));
    expect(fetched.message.stream_id).toBe(stream_id);

    // Subscribing again by name finds the channel instead of creating a second one.
    expectSuccess(await t.post("hamlet", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: CHANNEL }]) }));
    const named = await t.ctx.db.kysely.selectFrom("streams").select("id").where("name", "=", CHANNEL).execute();
    expect(named).toHaveLength(1);
    expectSuccess(await t.delete("hamlet", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify([CHANNEL]) }));
  });

  it("are mentioned and linked in messages", async () => {
    expectSuccess(await t.post("hamlet", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: CHANNEL }]) }));
    expectSuccess(await t.patch("iago", "/api/v1/settings", { full_name: "Élodie Ärger" }));
    const { rendered } = expectSuccess(await t.post("hamlet", "/api/v1/messages/render", { content: `@**Élodie Ärger** #**${CHANNEL}**` }));
    expect(rendered).toContain('class="user-mention" data-user-id="11">@Élodie Ärger</span>');
    expect(rendered).toContain(`class="stream" data-stream-id=`);
  });
});

// Names differing only in the case of their non-ASCII letters are the same name, as on
// PostgreSQL (whose lower() folds all of Unicode): SQLite's built-in lower() folded ASCII only.
describe("names differing only in the case of non-ASCII letters", () => {
  const subscribe = (who: string, name: string) => t.post(who, "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify([{ name }]) });
  const channelsNamed = async (lowerName: string) =>
    (await t.ctx.db.kysely.selectFrom("streams").select("name").execute()).filter((s) => s.name.toLowerCase() === lowerName);

  it("find the channel, and never make a second one", async () => {
    expectSuccess(await subscribe("hamlet", "ünïcode"));
    const { stream_id } = expectSuccess(await t.get("hamlet", "/api/v1/get_stream_id", { stream: "ünïcode" }));
    expect(expectSuccess(await t.get("hamlet", "/api/v1/get_stream_id", { stream: "Ünïcode" })).stream_id).toBe(stream_id);
    expect(expectSuccess(await t.get("othello", "/api/v1/get_stream_id", { stream: "ÜNÏCODE" })).stream_id).toBe(stream_id);

    // Subscribing by another spelling subscribes to the channel there is.
    expectSuccess(await subscribe("othello", "ÜNÏCODE"));
    expect(await channelsNamed("ünïcode")).toEqual([{ name: "ünïcode" }]);
    const subs = expectSuccess(await t.get("othello", "/api/v1/users/me/subscriptions")).subscriptions;
    expect(subs.filter((s: { stream_id: number }) => s.stream_id === stream_id)).toHaveLength(1);

    // Another channel cannot be renamed to it.
    expectSuccess(await subscribe("iago", "Ändern"));
    const other = expectSuccess(await t.get("iago", "/api/v1/get_stream_id", { stream: "ÄNDERN" })).stream_id;
    expectError(await t.patch("iago", `/api/v1/streams/${other}`, { new_name: "ÜNÏCODE" }), 400, "Channel 'ÜNÏCODE' already exists");
    expect(await channelsNamed("ünïcode")).toEqual([{ name: "ünïcode" }]);
  });

  it("find the person by email, and refuse the address to a second account", async () => {
    const created = expectSuccess(await t.post("iago", "/api/v1/users", { email: "élodie@zulip.com", password: "a-good-password", full_name: "Élodie" }));
    const found = expectSuccess(await t.get("iago", "/api/v1/users/ÉLODIE@zulip.com"));
    expect(found.user.user_id).toBe(created.user_id);
    const { api_key } = expectSuccess(await t.post(null, "/api/v1/fetch_api_key", { username: "Élodie@zulip.com", password: "a-good-password" }));
    expect(api_key).toBe((await t.user("élodie@zulip.com")).api_key);
    expectError(
      await t.post("iago", "/api/v1/users", { email: "ÉLODIE@zulip.com", password: "a-good-password", full_name: "Another" }),
      400,
      "Email 'ÉLODIE@zulip.com' already in use",
    );
  });

  it("narrow to the same topic", async () => {
    expectSuccess(await subscribe("hamlet", "Verona"));
    const sent = expectSuccess(await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Verona", topic: "Ärger über Öl", content: "hallo" }));
    const narrow = (topic: string) =>
      JSON.stringify([
        { operator: "channel", operand: "Verona" },
        { operator: "topic", operand: topic },
      ]);
    for (const topic of ["ärger über öl", "ÄRGER ÜBER ÖL"]) {
      const { messages } = expectSuccess(await t.get("hamlet", "/api/v1/messages", { narrow: narrow(topic), anchor: "newest", num_before: 10, num_after: 0 }));
      expect(messages.map((m: { id: number }) => m.id)).toContain(sent.id);
    }
  });

  it("mute and unmute the same topic", async () => {
    const VERONA = 1;
    expectSuccess(await t.post("hamlet", "/api/v1/user_topics", { stream_id: VERONA, topic: "ärger über öl", visibility_policy: 1 }));
    expectSuccess(await t.post("hamlet", "/api/v1/user_topics", { stream_id: VERONA, topic: "ÄRGER ÜBER ÖL", visibility_policy: 1 }));
    const policies = async () =>
      t.ctx.db.kysely
        .selectFrom("user_topics")
        .select("visibility_policy")
        .where("user_id", "=", (await t.user("hamlet")).id)
        .where("stream_id", "=", VERONA)
        .execute();
    expect(await policies()).toEqual([{ visibility_policy: 1 }]);
    expectSuccess(await t.post("hamlet", "/api/v1/user_topics", { stream_id: VERONA, topic: "Ärger Über Öl", visibility_policy: 0 }));
    expect(await policies()).toEqual([]);
  });
});
