import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { archiveTopicPath } from "../../src/http/archivePages.js";
import { seedChannels } from "../support/seed.js";
import { sendChannelMessage } from "../support/factories.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";

/**
 * What visitors (no account; web-public channels) load besides the API: the avatars of the
 * organization's users (Zulip serves them without credentials), and the KaTeX stylesheet and fonts
 * on archive pages with math.
 */
const t = useTestServer();
const setSpectatorAccess = async (on: boolean) => expectSuccess(await t.patch("desdemona", "/api/v1/realm", { enable_spectator_access: on }));
let avatarUrl: string;

beforeAll(async () => {
  await setSpectatorAccess(true);
  const png = await sharp({ create: { width: 120, height: 120, channels: 3, background: "#00ff00" } })
    .png()
    .toBuffer();
  const res = await t.upload("hamlet", "/api/v1/users/me/avatar", [{ field: "file-0", data: png, type: "image/png", filename: "me.png" }]);
  avatarUrl = expectSuccess(res).avatar_url;
});

describe("uploaded avatars for visitors", () => {
  it("are served without credentials while the organization lets visitors in", async () => {
    const res = await fetch(new URL(avatarUrl, t.baseUrl));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    const medium = await fetch(new URL(avatarUrl.replace(".png", "-medium.png"), t.baseUrl));
    expect(medium.status).toBe(200);
  });

  it("are not served for another organization's id, nor when visitors are turned away", async () => {
    const hamlet = await t.user("hamlet");
    const other = await fetch(new URL(`/user_avatars/${hamlet.realm_id + 100}/${hamlet.id}.png`, t.baseUrl));
    expect(other.status).toBe(404);
    await setSpectatorAccess(false);
    try {
      expect((await fetch(new URL(avatarUrl, t.baseUrl))).status).toBe(404);
      // Signed-in users still load them.
      const signedIn = await fetch(new URL(avatarUrl, t.baseUrl), { headers: { Authorization: await t.authHeader("othello") } });
      expect(signedIn.status).toBe(200);
    } finally {
      await setSpectatorAccess(true);
    }
  });
});

describe("archive pages", () => {
  it("link the web app's KaTeX stylesheet, whose fonts are served too", async () => {
    await sendChannelMessage(t, "hamlet", "Rome", "math", "$$x^2 + y^2$$");
    const html = await (await fetch(new URL(archiveTopicPath(seedChannels.rome, "math"), t.baseUrl))).text();
    expect(html).toContain('class="katex');
    const href = /<link rel="stylesheet" href="(\/static\/webapp\/katexStyle-[^"]+\.css)">/.exec(html)?.[1];
    expect(href).toBeDefined();
    const css = await fetch(new URL(href!, t.baseUrl));
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toContain("text/css");
    const text = await css.text();
    expect(text).toContain(".katex");
    const font = /url\(([^)]*KaTeX_Main-Regular[^)]*\.woff2)\)/.exec(text)?.[1];
    expect(font).toBeDefined();
    const fontRes = await fetch(new URL(font!.replace(/^["']|["']$/g, ""), new URL(href!, t.baseUrl)));
    expect(fontRes.status).toBe(200);
    expect(fontRes.headers.get("content-type")).toBe("font/woff2");
  });
});
