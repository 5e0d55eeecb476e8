import { describe, expect, it } from "vitest";
import { sendChannelMessage } from "../support/factories.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";

/**
 * A send reads the organization's linkifiers and alert words from memory (db/realmReadCache.ts).
 * Each change must take effect on the very next send: every step below sends once before the
 * change (so the old value is cached) and once after it.
 */
const t = useTestServer();

async function send(content: string, topic = "cache"): Promise<number> {
  return await sendChannelMessage(t, "iago", "Denmark", topic, content);
}
const message = async (who: string, id: number) => expectSuccess(await t.get(who, `/api/v1/messages/${id}`)).message;

describe("linkifiers cached for sending", () => {
  it("an added, changed and removed linkifier renders the next message", async () => {
    expect((await message("hamlet", await send("ticket T-1"))).content).toBe("<p>ticket T-1</p>");

    const id = expectSuccess(await t.post("iago", "/api/v1/realm/filters", { pattern: "T-(?P<id>[0-9]+)", url_template: "https://one.example/{id}" })).id;
    const added = await message("hamlet", await send("ticket T-2", "about T-3"));
    expect(added.content).toBe('<p>ticket <a href="https://one.example/2">T-2</a></p>');
    expect(added.topic_links).toEqual([{ text: "T-3", url: "https://one.example/3" }]);

    await send("warm the cache");
    expectSuccess(await t.patch("iago", `/api/v1/realm/filters/${id}`, { pattern: "T-(?P<id>[0-9]+)", url_template: "https://two.example/{id}" }));
    expect((await message("hamlet", await send("ticket T-4"))).content).toBe('<p>ticket <a href="https://two.example/4">T-4</a></p>');

    await send("warm the cache");
    expectSuccess(await t.delete("iago", `/api/v1/realm/filters/${id}`));
    expect((await message("hamlet", await send("ticket T-5"))).content).toBe("<p>ticket T-5</p>");
  });
});

describe("alert words cached for sending", () => {
  it("an added and a removed alert word flags the next message or stops flagging it", async () => {
    const flags = async (id: number) => (await message("othello", id)).flags as string[];
    expect(await flags(await send("the kettle is on"))).not.toContain("has_alert_word");

    expectSuccess(await t.post("othello", "/api/v1/users/me/alert_words", { alert_words: JSON.stringify(["kettle"]) }));
    expect(await flags(await send("the kettle is on"))).toContain("has_alert_word");

    expectSuccess(await t.post("othello", "/api/v1/users/me/alert_words", { alert_words: JSON.stringify(["teapot"]) }));
    expect(await flags(await send("a teapot"))).toContain("has_alert_word");

    expectSuccess(await t.delete("othello", "/api/v1/users/me/alert_words", { alert_words: JSON.stringify(["kettle"]) }));
    expect(await flags(await send("the kettle is on"))).not.toContain("has_alert_word");
    expect(await flags(await send("a teapot"))).toContain("has_alert_word");
  });

  it("a reactivated user's words flag the next message (no alert_words event at reactivation)", async () => {
    const hamlet = expectSuccess(await t.get("hamlet", "/api/v1/users/me")).user_id;
    expectSuccess(await t.post("hamlet", "/api/v1/users/me/alert_words", { alert_words: JSON.stringify(["marmalade"]) }));
    expectSuccess(await t.delete("iago", `/api/v1/users/${hamlet}`));
    await send("marmalade while she is away");
    expectSuccess(await t.post("iago", `/api/v1/users/${hamlet}/reactivate`));
    const id = await send("marmalade for everyone");
    expect((await message("hamlet", id)).flags).toContain("has_alert_word");
  });
});
