import { describe, expect, it } from "vitest";
import { sendChannelMessage } from "../support/factories.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

const t = useTestServer();

async function search(who: string, operand: string, extra: object[] = []) {
  const narrow = JSON.stringify([{ operator: "search", operand }, ...extra]);
  return expectSuccess(await t.get(who, "/api/v1/messages", { anchor: "newest", num_before: 50, num_after: 0, narrow })).messages as any[];
}

const ids = async (who: string, operand: string, extra: object[] = []) => (await search(who, operand, extra)).map((m) => m.id);

describe("the search operator uses the database's full-text index", () => {
  it("requires every word, in the text or the topic, case-insensitively", async () => {
    const a = await sendChannelMessage(t, "hamlet", "Verona", "Quokka sightings", "A wombat was seen near the river.");
    const b = await sendChannelMessage(t, "othello", "Verona", "zoo", "The wombat and the QUOKKA are friends.");
    expect(await ids("hamlet", "wombat")).toEqual([a, b]);
    expect(await ids("hamlet", "quokka wombat")).toEqual([a, b]);
    expect(await ids("hamlet", "WOMBAT river")).toEqual([a]);
    expect(await ids("hamlet", "wombat giraffe")).toEqual([]);
  });

  it("matches whole words, and the last word also as a prefix", async () => {
    const id = await sendChannelMessage(t, "hamlet", "Verona", "prefixes", "Marmalade sandwiches everywhere");
    expect(await ids("hamlet", "marmal")).toEqual([id]);
    expect(await ids("hamlet", "marmal sandwiches")).toEqual([]);
    expect(await ids("hamlet", "sandwiches marmal")).toEqual([id]);
    expect(await ids("hamlet", "armalade")).toEqual([]);
  });

  it("searches the rendered text, not the markup", async () => {
    const id = await sendChannelMessage(t, "hamlet", "Verona", "markup", "**Xylophone** lessons at [the hall](https://example.com/zzyzx)");
    expect(await ids("hamlet", "xylophone hall")).toEqual([id]);
    expect(await ids("hamlet", "zzyzx")).toEqual([]);
    expect(await ids("hamlet", "strong xylophone")).toEqual([]);
  });

  it("highlights the matched words in match_content and match_subject", async () => {
    const id = await sendChannelMessage(t, "hamlet", "Verona", "Pelican facts", "A pelican's pouch holds water; *pelicans* fly.");
    const [found] = await search("othello", "pelican");
    expect(found.id).toBe(id);
    expect(found.match_subject).toBe('<span class="highlight">Pelican</span> facts');
    expect(found.match_content).toBe(
      '<p>A <span class="highlight">pelican</span>\'s pouch holds water; <em><span class="highlight">pelicans</span></em> fly.</p>',
    );
  });

  it("follows edits, moves and deletions", async () => {
    const id = await sendChannelMessage(t, "hamlet", "Verona", "lifecycle", "original narwhal text");
    expect(await ids("hamlet", "narwhal")).toEqual([id]);
    expectSuccess(await t.patch("hamlet", `/api/v1/messages/${id}`, { content: "edited axolotl text" }));
    expect(await ids("hamlet", "narwhal")).toEqual([]);
    expect(await ids("hamlet", "axolotl")).toEqual([id]);
    expectSuccess(await t.patch("hamlet", `/api/v1/messages/${id}`, { topic: "capybara corner", send_notification_to_new_thread: false }));
    expect(await ids("hamlet", "capybara")).toEqual([id]);
    expectSuccess(await t.delete("hamlet", `/api/v1/messages/${id}`));
    expect(await ids("hamlet", "axolotl")).toEqual([]);
  });

  it("never finds messages the user may not read", async () => {
    const secret = expectSuccess(
      await t.post("iago", "/api/v1/messages", { type: "stream", to: "core team", topic: "plans", content: "the flamingo protocol" }),
    ).id;
    expect(await ids("hamlet", "flamingo")).toEqual([secret]);
    expect(await ids("othello", "flamingo")).toEqual([]);
    expect(await ids("polonius", "flamingo")).toEqual([]);
    const dm = expectSuccess(await t.post("hamlet", "/api/v1/messages", { type: "direct", to: JSON.stringify([12]), content: "secret platypus" })).id;
    expect(await ids("othello", "platypus")).toEqual([dm]);
    expect(await ids("iago", "platypus")).toEqual([]);
  });

  it("combines with other operators, negation and odd input", async () => {
    const a = await sendChannelMessage(t, "hamlet", "Verona", "combo", "lemur one");
    const b = await sendChannelMessage(t, "hamlet", "Denmark", "combo", "lemur two");
    expect(await ids("hamlet", "lemur", [{ operator: "channel", operand: "Denmark" }])).toEqual([b]);
    const notLemur = await ids("hamlet", "combo", [{ operator: "search", operand: "two", negated: true }]);
    expect(notLemur).toEqual([a]);
    expect(await ids("hamlet", '"lemur"')).toEqual([a, b]);
    expect(await ids("hamlet", "lemur's")).toEqual([]);
    expect(await ids("hamlet", "%% -- ''")).toEqual([]);
    expect(await ids("hamlet", 'lemur AND "OR" NEAR(x) *')).toEqual([]);
    expectError(
      await t.get("hamlet", "/api/v1/messages", {
        anchor: "newest",
        num_before: 5,
        num_after: 0,
        narrow: JSON.stringify([{ operator: "search", operand: 5 }]),
      }),
      400,
      "Invalid narrow operator: invalid search operand",
      "BAD_NARROW",
    );
  });

  it("answers matches_narrow with the same rules", async () => {
    const id = await sendChannelMessage(t, "othello", "Verona", "mn", "a tapir appears");
    const other = await sendChannelMessage(t, "othello", "Verona", "mn", "nothing here");
    const body = expectSuccess(
      await t.get("hamlet", "/api/v1/messages/matches_narrow", {
        msg_ids: JSON.stringify([id, other]),
        narrow: JSON.stringify([{ operator: "search", operand: "tapir" }]),
      }),
    );
    expect(body.messages).toEqual({ [id]: { match_content: '<p>a <span class="highlight">tapir</span> appears</p>', match_subject: "mn" } });
  });
});
