import { beforeAll, describe, expect, it } from "vitest";
import { seedChannels, seedIds } from "../support/seed.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

const t = useTestServer();

/** Seeded messages: 1-4 Verona, 5-7 Denmark, 8-9 Scotland, 10-11 Venice, 12 Rome, 13-14 core team, 15-17 hamlet↔othello. */
async function fetchIds(who: string, narrow: unknown): Promise<number[]> {
  const body = expectSuccess(await t.get(who, "/api/v1/messages", { anchor: "newest", num_before: 1000, num_after: 0, narrow: JSON.stringify(narrow) }));
  return body.messages.map((m: any) => m.id);
}

const term = (operator: string, operand: unknown, negated = false) => ({ operator, operand, negated });
let extra: { link: number; resolved: number; group: number; mention: number };

beforeAll(async () => {
  const send = async (who: string, params: Record<string, string>) => expectSuccess(await t.post(who, "/api/v1/messages", params)).id as number;
  extra = {
    link: await send("othello", { type: "stream", to: "Denmark", topic: "links", content: "see https://example.com" }), // 18
    resolved: await send("iago", { type: "stream", to: "Denmark", topic: "✔ done", content: "finished" }), // 19
    group: await send("iago", { type: "direct", to: JSON.stringify(seedIds("hamlet", "othello")), content: "three of us" }), // 20
    mention: await send("iago", { type: "stream", to: "Verona", topic: "test", content: "@**King Hamlet** look" }), // 21
  };
  // Hamlet's own message 5 (read) starred, and his reaction on 6.
  expectSuccess(await t.post("hamlet", "/api/v1/messages/flags", { messages: [5], op: "add", flag: "starred" }));
  expectSuccess(await t.post("hamlet", "/api/v1/messages/6/reactions", { emoji_name: "smile" }));
});

describe("narrow operators", () => {
  it("channel by name or id, and legacy pairs", async () => {
    expect(await fetchIds("hamlet", [term("channel", "Denmark")])).toEqual([5, 6, 7, extra.link, extra.resolved]);
    expect(await fetchIds("hamlet", [term("stream", 2)])).toEqual([5, 6, 7, extra.link, extra.resolved]);
    expect(await fetchIds("hamlet", [["stream", "denmark"]])).toEqual([5, 6, 7, extra.link, extra.resolved]);
  });

  it("channels:public searches all public channels' history", async () => {
    const ids = await fetchIds("cordelia", [term("channels", "public")]);
    expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, extra.link, extra.resolved, extra.mention]);
    expectError(
      await t.get("hamlet", "/api/v1/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow: JSON.stringify([term("channels", "secret")]) }),
      400,
      "Invalid narrow operator: unknown channels operand secret",
      "BAD_NARROW",
    );
  });

  it("topic, case-insensitively", async () => {
    expect(await fetchIds("hamlet", [term("channel", "Verona"), term("topic", "TEST")])).toEqual([1, 2, 3, extra.mention]);
    expect(await fetchIds("hamlet", [term("channel", "Verona"), term("topic", "test", true)])).toEqual([4]);
  });

  it("sender by id, email and me", async () => {
    expect(await fetchIds("hamlet", [term("sender", 12)])).toEqual([3, 6, 16, extra.link]);
    expect(await fetchIds("hamlet", [term("sender", "othello@zulip.com")])).toEqual([3, 6, 16, extra.link]);
    expect(await fetchIds("hamlet", [term("sender", "me")])).toEqual([2, 5, 15, 17]);
    expectError(
      await t.get("hamlet", "/api/v1/messages", {
        anchor: "newest",
        num_before: 1,
        num_after: 0,
        narrow: JSON.stringify([term("sender", "nobody@zulip.com")]),
      }),
      400,
      "Invalid narrow operator: unknown user nobody@zulip.com",
      "BAD_NARROW",
    );
  });

  it("dm with one user, a group, and dm-including", async () => {
    expect(await fetchIds("hamlet", [term("dm", [12])])).toEqual([15, 16, 17]);
    expect(await fetchIds("othello", [term("dm", "hamlet@zulip.com")])).toEqual([15, 16, 17]);
    expect(await fetchIds("hamlet", [term("dm", seedIds("iago", "othello"))])).toEqual([extra.group]);
    expect(await fetchIds("hamlet", [term("dm-including", 11)])).toEqual([extra.group]);
    expect(await fetchIds("hamlet", [term("dm-including", 12)])).toEqual([15, 16, 17, extra.group]);
    expect(await fetchIds("hamlet", [term("pm-with", "othello@zulip.com")])).toEqual([15, 16, 17]);
  });

  it("is: operands", async () => {
    expect(await fetchIds("hamlet", [term("is", "dm")])).toEqual([15, 16, 17, extra.group]);
    expect(await fetchIds("hamlet", [term("is", "private")])).toEqual([15, 16, 17, extra.group]);
    expect(await fetchIds("hamlet", [term("is", "starred")])).toEqual([5]);
    expect(await fetchIds("hamlet", [term("is", "mentioned")])).toEqual([extra.mention]);
    // 18 is his own, sent from an API client: not marked read (Zulip's default_read_by_sender).
    expect(await fetchIds("othello", [term("is", "unread"), term("channel", "Denmark")])).toEqual([5, 7, extra.link, extra.resolved]);
    expect(await fetchIds("hamlet", [term("is", "resolved")])).toEqual([extra.resolved]);
    expectError(
      await t.get("hamlet", "/api/v1/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow: JSON.stringify([term("is", "shiny")]) }),
      400,
      "Invalid narrow operator: unknown 'is' operand shiny",
      "BAD_NARROW",
    );
  });

  it("is:followed and is:muted follow the user's topic policies", async () => {
    // Othello started "links" and follows it automatically.
    expect(await fetchIds("othello", [term("is", "followed")])).toEqual([extra.link]);
    const mute = (value: boolean) =>
      t.post("hamlet", "/api/v1/users/me/subscriptions/properties", {
        subscription_data: [{ stream_id: seedChannels.denmark.id, property: "is_muted", value }],
      });
    expectSuccess(await mute(true));
    expect(await fetchIds("hamlet", [term("is", "muted")])).toEqual([5, 6, 7, extra.link, extra.resolved]);
    expect((await fetchIds("hamlet", [term("in", "home")])).some((id) => id >= 5 && id <= 7)).toBe(false);
    expectSuccess(await mute(false));
  });

  it("has: operands", async () => {
    expect(await fetchIds("hamlet", [term("has", "link")])).toEqual([extra.link]);
    expect(await fetchIds("hamlet", [term("has", "reaction")])).toEqual([6]);
    expect(await fetchIds("hamlet", [term("has", "image")])).toEqual([]);
    expectError(
      await t.get("hamlet", "/api/v1/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow: JSON.stringify([term("has", "cake")]) }),
      400,
      "Invalid narrow operator: unknown 'has' operand cake",
      "BAD_NARROW",
    );
  });

  it("id, near and with", async () => {
    expect(await fetchIds("hamlet", [term("id", 6)])).toEqual([6]);
    expect(await fetchIds("hamlet", [term("id", "6")])).toEqual([6]);
    expectError(
      await t.get("hamlet", "/api/v1/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow: JSON.stringify([term("id", "six")]) }),
      400,
      "Invalid narrow operator: Invalid message ID",
      "BAD_NARROW",
    );
    expect(await fetchIds("hamlet", [term("channel", "Denmark"), term("near", 6)])).toEqual([5, 6, 7, extra.link, extra.resolved]);
    // with: the conversation that contains the message, wherever the narrow pointed.
    expect(await fetchIds("hamlet", [term("channel", "Verona"), term("topic", "other"), term("with", 6)])).toEqual([5, 6, 7]);
    expect(await fetchIds("hamlet", [term("with", 16)])).toEqual([15, 16, 17]);
  });

  it("search matches words in content and topic and highlights them", async () => {
    const body = expectSuccess(
      await t.get("hamlet", "/api/v1/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow: JSON.stringify([term("search", "ROTTEN state")]) }),
    );
    expect(body.messages.map((m: any) => m.id)).toEqual([5]);
    expect(body.messages[0].match_content).toBe(
      '<p>Something is <span class="highlight">rotten</span> in the <span class="highlight">state</span> of Denmark.</p>',
    );
    expect(body.messages[0].match_subject).toBe("Castle");
    expect(await fetchIds("hamlet", [term("search", "castle")])).toEqual([5, 6, 7]);
    expect(await fetchIds("hamlet", [term("search", "100%")])).toEqual([]);
  });

  it("negation applies to any operator", async () => {
    expect(await fetchIds("hamlet", [term("channel", "Denmark"), term("sender", 12, true)])).toEqual([5, 7, extra.resolved]);
    expect(await fetchIds("hamlet", [term("is", "dm", true), term("channel", "Verona", true), term("channel", "Denmark", true)])).toEqual([13, 14]);
  });

  it("rejects malformed narrow terms", async () => {
    const res = await t.get("hamlet", "/api/v1/messages", {
      anchor: "newest",
      num_before: 1,
      num_after: 0,
      narrow: JSON.stringify({ operator: "is", operand: "dm" }),
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("BAD_REQUEST");
  });
});
