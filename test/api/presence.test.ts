import { describe, expect, it } from "vitest";
import { queuedEvents, registerQueue } from "../support/factories.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

const t = useTestServer();

const register = (who: string, capabilities: Record<string, boolean> = {}) =>
  registerQueue(t, who, { event_types: ["presence"], client_capabilities: capabilities });

describe("presence", () => {
  it("records a ping, tells others once in the format each client asked for, and lists it", async () => {
    const hamlet = await t.user("hamlet");
    const legacy = await register("othello");
    const modern = await register("cordelia", { simplified_presence_events: true });
    const res = expectSuccess(await t.post("hamlet", "/api/v1/users/me/presence", { status: "active", slim_presence: true }));
    expect(res.presences[String(hamlet.id)]).toEqual({ active_timestamp: expect.any(Number), idle_timestamp: expect.any(Number) });
    expect(res).toMatchObject({ server_timestamp: expect.any(Number), zephyr_mirror_active: false });
    // A second ping within the threshold changes nothing anyone needs to know.
    expectSuccess(await t.post("hamlet", "/api/v1/users/me/presence", { status: "active", ping_only: true }));

    const legacyEvents = await queuedEvents(t, "othello", legacy.queue_id);
    expect(legacyEvents).toEqual([
      {
        id: 0,
        type: "presence",
        user_id: hamlet.id,
        email: hamlet.email,
        server_timestamp: expect.any(Number),
        presence: { website: { client: "website", status: "active", timestamp: expect.any(Number), pushable: false } },
      },
    ]);
    expect(await queuedEvents(t, "cordelia", modern.queue_id)).toEqual([
      { id: 0, type: "presence", presences: { [String(hamlet.id)]: { active_timestamp: expect.any(Number), idle_timestamp: expect.any(Number) } } },
    ]);

    const realm = expectSuccess(await t.get("othello", "/api/v1/realm/presence"));
    expect(realm.presences[hamlet.email]).toMatchObject({ aggregated: { status: "active" }, website: { status: "active" } });
    const one = expectSuccess(await t.get("othello", `/api/v1/users/${hamlet.id}/presence`));
    expect(one.presence.aggregated).toEqual({ status: "active", timestamp: expect.any(Number) });
    const state = expectSuccess(await t.post("othello", "/api/v1/register", { fetch_event_types: ["presence"], slim_presence: true }));
    expect(state.presences[String(hamlet.id)]).toMatchObject({ active_timestamp: expect.any(Number) });
  });

  it("numbers presence changes: a client gets those after its last_update_id, and the highest id sent", async () => {
    const [hamlet, othello] = [await t.user("hamlet"), await t.user("othello")];
    const ping = async (who: string, params: Record<string, unknown> = {}) =>
      expectSuccess(await t.post(who, "/api/v1/users/me/presence", { status: "active", ...params }));
    const first = await ping("hamlet", { last_update_id: -1 });
    expect(first.presences).toHaveProperty(String(hamlet.id));
    expect(first.presence_last_update_id).toBeGreaterThan(0);
    const second = await ping("othello", { last_update_id: first.presence_last_update_id });
    expect(Object.keys(second.presences)).toEqual([String(othello.id)]);
    expect(second.presence_last_update_id).toBeGreaterThan(first.presence_last_update_id);
    const third = await ping("hamlet", { last_update_id: first.presence_last_update_id });
    expect(Object.keys(third.presences).sort()).toEqual([String(hamlet.id), String(othello.id)].sort());
    expect(third.presence_last_update_id).toBeGreaterThan(second.presence_last_update_id);
    // Without last_update_id: the legacy format, still with the highest id; none sent: the client's id back.
    expect((await ping("iago")).presence_last_update_id).toBe(third.presence_last_update_id + 1);
    expect(await ping("iago", { last_update_id: 10_000, history_limit_days: 0 })).toMatchObject({ presences: {}, presence_last_update_id: 10_000 });
    const state = expectSuccess(await t.post("othello", "/api/v1/register", { fetch_event_types: ["presence"] }));
    // iago's second ping took the next id too.
    expect(state.presence_last_update_id).toBe(third.presence_last_update_id + 2);
  });

  it("hides users who turned presence off, and rejects bad input", async () => {
    const iago = await t.user("iago");
    expectSuccess(await t.patch("iago", "/api/v1/settings", { presence_enabled: false }));
    const queue = await register("othello");
    expectSuccess(await t.post("iago", "/api/v1/users/me/presence", { status: "idle" }));
    expect(await queuedEvents(t, "othello", queue.queue_id)).toEqual([]);
    expect(expectSuccess(await t.get("othello", "/api/v1/realm/presence")).presences).not.toHaveProperty(iago.email);
    expectError(await t.get("othello", `/api/v1/users/${iago.id}/presence`), 400, `No presence data for ${iago.email}`);
    expectSuccess(await t.patch("iago", "/api/v1/settings", { presence_enabled: true }));

    expectError(await t.post("hamlet", "/api/v1/users/me/presence", { status: "away" }), 400, "Invalid presence status: away");
    expectError(await t.post("hamlet", "/api/v1/users/me/presence", {}), 400, "Missing 'status' argument", "REQUEST_VARIABLE_MISSING");
    expectError(await t.get("othello", "/api/v1/users/99999/presence"), 400, "No such user", "BAD_REQUEST");
  });
});
