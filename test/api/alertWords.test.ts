import { describe, expect, it } from "vitest";
import { containsAlertWord } from "../../src/lib/alertWords.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

/** Alert words: per-user words that flag the messages containing them (has_alert_word). */
const t = useTestServer({ eventHeartbeatSeconds: 1 });

describe("alert word matching", () => {
  it("matches whole words, case-insensitively, between spaces and punctuation", () => {
    expect(containsAlertWord("The RELEASE is out", "release")).toBe(true);
    expect(containsAlertWord("(release), really?", "release")).toBe(true);
    expect(containsAlertWord("`release`", "release")).toBe(true);
    expect(containsAlertWord("prerelease notes", "release")).toBe(false);
    expect(containsAlertWord("releases", "release")).toBe(false);
    expect(containsAlertWord("go live now", "go live")).toBe(true);
  });
});

describe("/users/me/alert_words", () => {
  it("adds, lists and removes words, with alert_words events and the /register section", async () => {
    const reg = expectSuccess(await t.post("hamlet", "/api/v1/register", { event_types: JSON.stringify(["alert_words"]) }));
    expect(
      expectSuccess(await t.post("hamlet", "/api/v1/users/me/alert_words", { alert_words: JSON.stringify([" release ", "Deploy", "", "release"]) }))
        .alert_words,
    ).toEqual(["release", "Deploy"]);
    expect(expectSuccess(await t.post("hamlet", "/api/v1/users/me/alert_words", { alert_words: JSON.stringify(["RELEASE", "outage"]) })).alert_words).toEqual([
      "release",
      "Deploy",
      "outage",
    ]);
    expect(
      expectSuccess(await t.delete("hamlet", "/api/v1/users/me/alert_words", { alert_words: JSON.stringify(["deploy", "never added"]) })).alert_words,
    ).toEqual(["release", "outage"]);
    expect(expectSuccess(await t.get("hamlet", "/api/v1/users/me/alert_words")).alert_words).toEqual(["release", "outage"]);
    const { events } = expectSuccess(await t.get("hamlet", "/api/v1/events", { queue_id: reg.queue_id, last_event_id: "-1", dont_block: "true" }));
    expect(events.map((e: any) => e.alert_words)).toEqual([
      ["release", "Deploy"],
      ["release", "Deploy", "outage"],
      ["release", "outage"],
    ]);
    const state = expectSuccess(
      await t.post("hamlet", "/api/v1/register", { fetch_event_types: JSON.stringify(["alert_words"]), event_types: JSON.stringify(["message"]) }),
    );
    expect(state.alert_words).toEqual(["release", "outage"]);
    expectError(
      await t.post("hamlet", "/api/v1/users/me/alert_words", { alert_words: JSON.stringify(["x".repeat(101)]) }),
      400,
      "alert_words[0] is too long (limit: 100 characters)",
    );
    expect((await t.post("hamlet", "/api/v1/users/me/alert_words", { alert_words: "release" })).status).toBe(400);
  });

  it("flag the messages that contain one for their owners only, and the alerted narrow finds them", async () => {
    expectSuccess(await t.post("othello", "/api/v1/users/me/alert_words", { alert_words: JSON.stringify(["lunch"]) }));
    const id = expectSuccess(
      await t.post("iago", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "alerts", content: "Lunch at noon, and a release." }),
    ).id;
    const flags = async (who: string) => expectSuccess(await t.get(who, `/api/v1/messages/${id}`)).message.flags as string[];
    expect(await flags("othello")).toContain("has_alert_word");
    expect(await flags("hamlet")).toContain("has_alert_word");
    expect(await flags("prospero")).not.toContain("has_alert_word");
    const narrow = JSON.stringify([{ operator: "is", operand: "alerted" }]);
    const found = expectSuccess(await t.get("othello", "/api/v1/messages", { anchor: "newest", num_before: "5", num_after: "0", narrow })).messages;
    expect(found.map((m: any) => m.id)).toContain(id);
  });
});
