import { describe, expect, it } from "vitest";
import { channelId } from "../support/factories.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

/** Default channels: the channels new users join (POST/DELETE /default_streams). */
const t = useTestServer({ eventHeartbeatSeconds: 1 });

const defaults = async () =>
  expectSuccess(await t.post("iago", "/api/v1/register", { fetch_event_types: JSON.stringify(["default_streams"]) })).realm_default_streams as number[];

describe("/default_streams", () => {
  it("adds and removes default channels, with default_streams events carrying their ids, and new users join them", async () => {
    expectSuccess(await t.post("iago", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "new default" }]) }));
    const id = await channelId(t, "new default");
    const before = await defaults();
    expect(before).not.toContain(id);
    const reg = expectSuccess(await t.post("hamlet", "/api/v1/register", { event_types: JSON.stringify(["default_streams"]) }));
    expectSuccess(await t.post("iago", "/api/v1/default_streams", { stream_id: id }));
    // Adding it again changes nothing.
    expectSuccess(await t.post("iago", "/api/v1/default_streams", { stream_id: id }));
    const withIt = [...before, id].sort((a, b) => a - b);
    expect(await defaults()).toEqual(withIt);

    const user = expectSuccess(await t.post("iago", "/api/v1/users", { email: "joiner@zulip.com", password: "parleydev1", full_name: "Joiner" })).user_id;
    expect(expectSuccess(await t.get("iago", `/api/v1/users/${user}/subscriptions/${id}`)).is_subscribed).toBe(true);

    expectSuccess(await t.delete("iago", "/api/v1/default_streams", { stream_id: id }));
    expectSuccess(await t.delete("iago", "/api/v1/default_streams", { stream_id: id }));
    expect(await defaults()).toEqual(before);
    const later = expectSuccess(
      await t.post("iago", "/api/v1/users", { email: "latecomer@zulip.com", password: "parleydev1", full_name: "Latecomer" }),
    ).user_id;
    expect(expectSuccess(await t.get("iago", `/api/v1/users/${later}/subscriptions/${id}`)).is_subscribed).toBe(false);

    const { events } = expectSuccess(await t.get("hamlet", "/api/v1/events", { queue_id: reg.queue_id, last_event_id: "-1", dont_block: "true" }));
    expect(events.map((e: any) => e.default_streams)).toEqual([withIt, before]);
  });

  it("is for administrators, and refuses private, unknown and archived channels as Zulip does", async () => {
    const denmark = await channelId(t, "Denmark");
    expectError(
      await t.post("hamlet", "/api/v1/default_streams", { stream_id: denmark }),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expectError(
      await t.delete("hamlet", "/api/v1/default_streams", { stream_id: denmark }),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expectError(await t.post("iago", "/api/v1/default_streams", { stream_id: 999999 }), 400, "Invalid channel ID");
    expectError(await t.delete("iago", "/api/v1/default_streams", { stream_id: 999999 }), 400, "Invalid channel ID");
    expectError(await t.post("iago", "/api/v1/default_streams", { stream_id: '"x"' }), 400, "stream_id is not an integer");
    expectError(await t.post("iago", "/api/v1/default_streams", {}), 400, "Missing 'stream_id' argument", "REQUEST_VARIABLE_MISSING");
    expectSuccess(await t.post("iago", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "secret default" }]), invite_only: true }));
    expectError(
      await t.post("iago", "/api/v1/default_streams", { stream_id: await channelId(t, "secret default") }),
      400,
      "Private channels cannot be made default.",
    );
    // A private channel the administrator is not subscribed to looks missing.
    expectSuccess(await t.post("hamlet", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "hamlet secret" }]), invite_only: true }));
    const hidden = Number((await t.ctx.db.kysely.selectFrom("streams").select("id").where("name", "=", "hamlet secret").executeTakeFirstOrThrow()).id);
    expectError(await t.post("iago", "/api/v1/default_streams", { stream_id: hidden }), 400, "Invalid channel ID");
    expectSuccess(await t.post("iago", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "to archive" }]) }));
    const archived = await channelId(t, "to archive");
    expectSuccess(await t.delete("iago", `/api/v1/streams/${archived}`));
    expectError(await t.post("iago", "/api/v1/default_streams", { stream_id: archived }), 400, "Invalid channel ID");
    expect(await defaults()).not.toContain(archived);
  });
});
