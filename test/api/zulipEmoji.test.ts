import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { sendChannelMessage } from "../support/factories.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";

/**
 * The image of Zulip's extra emoji `:zulip:`. Zulip's apps build its URL themselves (reactions,
 * statuses, the emoji picker) and Parley's rendered messages point there too, so it is served at
 * Zulip's static path, without a login and cached for a year, as Zulip's static files are.
 */
const t = useTestServer();
const ZULIP_EMOJI_URL = "/static/generated/emoji/images/emoji/unicode/zulip.png";

describe("GET /static/generated/emoji/images/emoji/unicode/zulip.png", () => {
  it("answers a 64×64 PNG without a login, cached for a year", async () => {
    const res = await fetch(t.baseUrl + ZULIP_EMOJI_URL);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const image = Buffer.from(await res.arrayBuffer());
    const meta = await sharp(image).metadata();
    expect([meta.format, meta.width, meta.height, meta.hasAlpha]).toEqual(["png", 64, 64, true]);
    // A drawing, not an empty square: opaque pixels and transparent corners.
    const stats = await sharp(image).stats();
    expect(at(stats.channels, 3).max).toBe(255);
    expect(at(stats.channels, 3).min).toBe(0);
  });

  it("is the image a :zulip: in a message points at", async () => {
    const sent = await t.post("othello", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "emoji", content: "made with :zulip:" });
    const message = expectSuccess(await t.get("hamlet", `/api/v1/messages/${expectSuccess(sent).id}`)).message;
    const src = /<img alt=":zulip:" class="emoji" src="([^"]+)" title="zulip">/.exec(message.content)?.[1];
    expect(src).toBe(ZULIP_EMOJI_URL);
    const res = await fetch(new URL(src!, t.baseUrl));
    expect([res.status, res.headers.get("content-type")]).toEqual([200, "image/png"]);
  });

  it("is the image of a :zulip: reaction, whose emoji_code names the file", async () => {
    const id = await sendChannelMessage(t, "othello", "Denmark", "emoji", "react");
    expectSuccess(await t.post("hamlet", `/api/v1/messages/${id}/reactions`, { emoji_name: "zulip" }));
    const [reaction] = expectSuccess(await t.get("hamlet", `/api/v1/messages/${id}`)).message.reactions;
    // Zulip's apps: /static/generated/emoji/images/emoji/unicode/<emoji_code>.png for this type.
    expect([reaction.emoji_name, reaction.emoji_code]).toEqual(["zulip", "zulip"]);
    const res = await fetch(`${t.baseUrl}/static/generated/emoji/images/emoji/unicode/${reaction.emoji_code}.png`);
    expect(res.status).toBe(200);
  });
});
