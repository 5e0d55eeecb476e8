import { describe, expect, it } from "vitest";
import { expectSuccess, useTestServer } from "../support/testApp.js";

// Names with non-ASCII capitals: SQLite's lower() folds ASCII only, so a lookup that folded the
// name in JavaScript never found them on SQLite, not even written exactly.
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
