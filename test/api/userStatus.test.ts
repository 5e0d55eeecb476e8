import { describe, expect, it } from "vitest";
import { seedIds } from "../support/seed.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";

const t = useTestServer();

async function statusOf(userId: number) {
  return expectSuccess(await t.get("hamlet", `/api/v1/users/${userId}/status`)).status;
}

describe("GET /users/{user_id}/status", () => {
  it("is empty when no status is set", async () => {
    expect(await statusOf(6)).toEqual({});
  });

  it("answers No such user for unknown users and users of other realms", async () => {
    expectError(await t.get("hamlet", "/api/v1/users/9999/status"), 400, "No such user");
    expectError(await t.get("hamlet", "/api/v1/users/1/status"), 400, "No such user");
  });

  it("requires authentication", async () => {
    expectError(await t.get(null, "/api/v1/users/6/status"), 401, "Not logged in: API authentication or user session required", "UNAUTHORIZED");
  });
});

describe("POST /users/me/status", () => {
  it("sets text and emoji, tells the realm, and changes only what is passed", async () => {
    const { result: res, events } = await t.captureEvents(() =>
      t.post("othello", "/api/v1/users/me/status", { status_text: " on vacation ", emoji_name: "car", emoji_code: "1f697", reaction_type: "unicode_emoji" }),
    );
    expectSuccess(res);
    expect(events).toHaveLength(1);
    expect(at(events, 0).event).toEqual({
      type: "user_status",
      user_id: 12,
      status_text: "on vacation",
      emoji_name: "car",
      emoji_code: "1f697",
      reaction_type: "unicode_emoji",
    });
    expect(at(events, 0).users).toEqual(expect.arrayContaining(seedIds("aaron", "hamlet", "othello")));
    expect(await statusOf(12)).toEqual({ status_text: "on vacation", emoji_name: "car", emoji_code: "1f697", reaction_type: "unicode_emoji" });

    expectSuccess(await t.post("othello", "/api/v1/users/me/status", { status_text: "back soon" }));
    expect(await statusOf(12)).toMatchObject({ status_text: "back soon", emoji_name: "car" });

    expectSuccess(await t.post("othello", "/api/v1/users/me/status", { emoji_name: "" }));
    expect(await statusOf(12)).toEqual({ status_text: "back soon" });

    expectSuccess(await t.post("othello", "/api/v1/users/me/status", { status_text: "" }));
    expect(await statusOf(12)).toEqual({});
  });

  it("accepts Zulip's extra emoji by name alone", async () => {
    expectSuccess(await t.post("cordelia", "/api/v1/users/me/status", { emoji_name: "zulip" }));
    expect(await statusOf(8)).toEqual({ emoji_name: "zulip", emoji_code: "zulip", reaction_type: "service_extra_emoji" });
  });

  it("maps the deprecated away flag to presence_enabled", async () => {
    const { events } = await t.captureEvents(async () => expectSuccess(await t.post("prospero", "/api/v1/users/me/status", { away: true })));
    expect(events.map((e) => e.event)).toContainEqual({ type: "user_status", user_id: 14, away: true });
    expect(await statusOf(14)).toEqual({ away: true });
    expectSuccess(await t.post("prospero", "/api/v1/users/me/status", { away: false }));
    expect(await statusOf(14)).toEqual({});
  });

  it("rejects requests with nothing to change and bad values", async () => {
    const url = "/api/v1/users/me/status";
    expectError(await t.post("aaron", url, {}), 400, "Client did not pass any new values.");
    expectError(await t.post("aaron", url, { status_text: "x".repeat(61) }), 400, "status_text is too long (limit: 60 characters)");
    expectError(
      await t.post("aaron", url, { status_text: "hi", emoji_code: "1f697" }),
      400,
      "Client must pass emoji_name if they pass either emoji_code or reaction_type.",
    );
    expectError(await t.post("aaron", url, { emoji_name: "car", emoji_code: "zzz", reaction_type: "unicode_emoji" }), 400, "Invalid emoji code.");
    expectError(await t.post("aaron", url, { emoji_name: "car", emoji_code: "1f697", reaction_type: "sticker" }), 400, "Invalid emoji type.");
    expectError(await t.post("aaron", url, { emoji_name: "nonexistent_emoji" }), 400, "Emoji 'nonexistent_emoji' does not exist");
    expectError(await t.post("aaron", url, { emoji_name: "zulip", emoji_code: "other", reaction_type: "zulip_extra_emoji" }), 400, "Invalid emoji code.");
    expectError(await t.post("aaron", url, { away: "yes" }), 400, "away is not valid JSON");
    expect(await statusOf(6)).toEqual({});
  });
});
