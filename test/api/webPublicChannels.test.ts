import { describe, expect, it } from "vitest";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

const t = useTestServer();

// Web-public channels need the realm's spectator access (Zulip's default: off) and
// can_create_web_public_channel_group (default: role:owners).
describe("web-public channels", () => {
  it("are refused while spectator access is off, and then created only by owners", async () => {
    const create = (who: string, name: string) => t.post(who, "/api/v1/users/me/subscriptions", { subscriptions: [{ name }], is_web_public: true });
    expectError(await create("desdemona", "web one"), 400, "Web-public channels are not enabled.");
    await t.withRealmSettings({ enable_spectator_access: true }, async () => {
      expectError(await create("iago", "web two"), 400, "Insufficient permission");
      expectSuccess(await create("desdemona", "web three"));
      const id = expectSuccess(await t.get("desdemona", "/api/v1/get_stream_id", { stream: "web three" })).stream_id;
      const stream = expectSuccess(await t.get("polonius", `/api/v1/streams/${id}`)).stream;
      expect(stream).toMatchObject({ name: "web three", is_web_public: true, invite_only: false, history_public_to_subscribers: true });
    });
  });
});
