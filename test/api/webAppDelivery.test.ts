import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import zlib from "node:zlib";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a JavaScript module without types
import { build, isBuilt } from "../../scripts/build.mjs";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { REPO_ROOT } from "../support/process.js";
import { type RawResponse, rawGet } from "../support/rawHttp.js";
import { useTestServer } from "../support/testApp.js";
import { postLoginForm } from "../support/webLogin.js";
import { at } from "../support/at.js";
import { defined } from "../../src/util/defined.js";

// How the web app's files reach a browser: compressed (gzip, brotli) as the client accepts,
// cached for a year under hashed names; KaTeX's stylesheet and fonts; the emoji sets' images.
beforeAll(async () => {
  if (!isBuilt()) await build();
}, 120_000);
const t = useTestServer({ dev: true });

function manifest(): Record<string, { file: string; css?: string[]; isEntry?: boolean }> {
  return JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "dist", "web", ".vite", "manifest.json"), "utf8"));
}

function decode(res: RawResponse): Buffer {
  const encoding = res.headers["content-encoding"];
  if (encoding === "br") return zlib.brotliDecompressSync(res.body);
  if (encoding === "gzip") return zlib.gunzipSync(res.body);
  return res.body;
}

async function sessionCookie(email: string): Promise<string> {
  const res = await postLoginForm(t.baseUrl, email, DEV_PASSWORD, { headers: { Accept: "text/html" } });
  expect(res.status).toBe(302);
  return res.headers
    .getSetCookie()
    .map((line) => at(line.split(";"), 0))
    .filter((pair) => /^(sessionid|csrftoken)=/.test(pair))
    .join("; ");
}

describe("GET /static/webapp/{file}", () => {
  it("sends the script as brotli, gzip or plain by Accept-Encoding, with Vary and a year's immutable cache", async () => {
    const entry = Object.values(manifest()).find((chunk) => chunk.isEntry)!;
    const url = `${t.baseUrl}/static/webapp/${entry.file}`;
    const plain = fs.readFileSync(path.join(REPO_ROOT, "dist", "web", entry.file));
    const cases: Array<[string, string | undefined]> = [
      ["gzip, deflate, br, zstd", "br"],
      ["gzip", "gzip"],
      ["br;q=0, gzip;q=0.8", "gzip"],
      ["*", "br"],
      ["identity", undefined],
      ["", undefined],
    ];
    for (const [accept, expected] of cases) {
      const res = await rawGet(url, accept ? { "Accept-Encoding": accept } : {});
      expect(res.status, accept).toBe(200);
      expect(res.headers["content-encoding"], accept).toBe(expected);
      expect(res.headers.vary, accept).toBe("Accept-Encoding");
      expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(res.headers["content-type"]).toBe("text/javascript; charset=utf-8");
      expect(decode(res).equals(plain), accept).toBe(true);
      // What goes over the wire: brotli and gzip a third of the script or less.
      if (expected) expect(res.body.length).toBeLessThan(plain.length / 3);
    }
  });

  it("sends the stylesheet compressed, and KaTeX's woff2 fonts as they are", async () => {
    const entry = Object.values(manifest()).find((chunk) => chunk.isEntry)!;
    const css = await rawGet(`${t.baseUrl}/static/webapp/${entry.css![0]}`, { "Accept-Encoding": "gzip" });
    expect([css.status, css.headers["content-encoding"], css.headers["content-type"]]).toEqual([200, "gzip", "text/css; charset=utf-8"]);
    const katex = defined(manifest()["src/katexStyle.ts"], "manifest()['src/katexStyle.ts']");
    expect(katex.file).toMatch(/\.css$/);
    const katexCss = decode(await rawGet(`${t.baseUrl}/static/webapp/${katex.file}`, { "Accept-Encoding": "br" })).toString();
    expect(katexCss).toContain(".katex .katex-mathml");
    const fonts = [...katexCss.matchAll(/url\(([^)]+)\)/g)].map((m) => at(m, 1).replace(/^["']|["']$/g, ""));
    expect(fonts.length).toBeGreaterThan(15);
    expect(fonts.every((f) => /^\/static\/webapp\/KaTeX_[\w-]+\.woff2$/.test(f))).toBe(true);
    const font = await rawGet(t.baseUrl + fonts[0], { "Accept-Encoding": "gzip, br" });
    expect([font.status, font.headers["content-type"], font.headers["content-encoding"]]).toEqual([200, "font/woff2", undefined]);
    expect(font.body.subarray(0, 4).toString("latin1")).toBe("wOF2");
  });
});

describe("GET / (the app's page)", () => {
  it("streams the page compressed, the head flushed before the state", async () => {
    const cookie = await sessionCookie("hamlet@zulip.com");
    for (const encoding of ["br", "gzip"]) {
      const firstText = await new Promise<string>((resolve, reject) => {
        http
          .get(`${t.baseUrl}/`, { headers: { Cookie: cookie, "Accept-Encoding": encoding } }, (res) => {
            expect(res.statusCode).toBe(200);
            expect(res.headers["content-encoding"]).toBe(encoding);
            expect(res.headers.vary).toBe("Accept-Encoding");
            expect(res.headers["cache-control"]).toBe("no-store");
            // The first text the bytes decode to: the head alone, flushed before the state was built.
            const decoder = encoding === "br" ? zlib.createBrotliDecompress() : zlib.createGunzip();
            decoder.once("data", (text: Buffer) => {
              res.destroy();
              resolve(text.toString());
            });
            res.on("data", (chunk: Buffer) => decoder.write(chunk));
            res.on("error", () => {});
          })
          .on("error", reject);
      });
      expect(firstText).toMatch(/^<!DOCTYPE html>/);
      expect(firstText).toMatch(/<script type="module" async src="\/static\/webapp\/main-[\w-]+\.js"><\/script>/);
      expect(firstText).not.toContain("parley-state");
    }
    const whole = await rawGet(`${t.baseUrl}/`, { Cookie: cookie, "Accept-Encoding": "gzip, br" });
    expect(whole.headers["content-encoding"]).toBe("br");
    const html = decode(whole).toString();
    expect(html).toMatch(/<script type="application\/json" id="parley-state">\{.*<\/script><\/body><\/html>\n$/s);
    // About a sixth of the page's size goes over the wire.
    expect(whole.body.length).toBeLessThan(html.length / 4);
    const plain = await rawGet(`${t.baseUrl}/`, { Cookie: cookie });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.toString()).toMatch(/id="parley-state">\{/);
  });

  it("allows inline style attributes (KaTeX's) but no inline script or style sheet", async () => {
    const cookie = await sessionCookie("hamlet@zulip.com");
    const res = await rawGet(`${t.baseUrl}/`, { Cookie: cookie });
    const policy = String(res.headers["content-security-policy"]).split("; ");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("style-src 'self'");
    expect(policy).toContain("style-src-attr 'unsafe-inline'");
    expect(policy).toContain("font-src 'self'");
    expect(policy.filter((d) => d.includes("unsafe-inline"))).toEqual(["style-src-attr 'unsafe-inline'"]);
  });
});

describe("the API's JSON answers", () => {
  it("are compressed from 1 KB on, by Accept-Encoding, with Vary", async () => {
    for (let i = 0; i < 30; i++)
      await t.post("othello", "/api/v1/messages", { type: "stream", to: "Verona", topic: "compression", content: `Message ${i} of a page` });
    const authorization = await t.authHeader("hamlet");
    const url = `${t.baseUrl}/api/v1/messages?anchor=newest&num_before=30&num_after=0`;
    const plain = await rawGet(url, { Authorization: authorization });
    expect([plain.status, plain.headers["content-encoding"], plain.headers.vary]).toEqual([200, undefined, "Accept-Encoding"]);
    expect(plain.body.length).toBeGreaterThan(10_000);
    for (const encoding of ["br", "gzip"]) {
      const res = await rawGet(url, { Authorization: authorization, "Accept-Encoding": encoding });
      expect([res.status, res.headers["content-encoding"], res.headers.vary]).toEqual([200, encoding, "Accept-Encoding"]);
      expect(res.body.length).toBeLessThan(plain.body.length / 4);
      const page = JSON.parse(decode(res).toString());
      expect(page.messages).toHaveLength(30);
      expect(page.messages.at(-1).content).toBe("<p>Message 29 of a page</p>");
    }
    const emojiData = await rawGet(`${t.baseUrl}/static/generated/emoji/emoji_api.json`, { "Accept-Encoding": "gzip, br" });
    expect([emojiData.status, emojiData.headers["content-encoding"]]).toEqual([200, "br"]);
    // A small answer goes out as it is.
    const small = await rawGet(`${t.baseUrl}/api/v1/users/me/alert_words`, { Authorization: authorization, "Accept-Encoding": "br" });
    expect([small.status, small.headers["content-encoding"]]).toEqual([200, undefined]);
  });
});

describe("GET /static/generated/emoji/images-{set}-64/{emoji_code}.png", () => {
  it("serves each set's 64 px image of an emoji, without a login, cached for a year", async () => {
    const sets = ["google", "twitter", "google-blob"] as const;
    const images = {} as Record<(typeof sets)[number], Buffer>; // the loop fills in every set
    for (const set of sets) {
      const res = await rawGet(`${t.baseUrl}/static/generated/emoji/images-${set}-64/1f389.png`);
      expect([res.status, res.headers["content-type"], res.headers["cache-control"]]).toEqual([200, "image/png", "public, max-age=31536000, immutable"]);
      const meta = await sharp(res.body).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(["png", 64, 64]);
      images[set] = res.body;
    }
    expect(images.google.equals(images.twitter)).toBe(false); // two drawings
    expect(images["google-blob"].equals(images.google)).toBe(true); // drawn with Google's
  });

  it("names images by Zulip's emoji code: no FE0F, skin tones, the :zulip: image", async () => {
    for (const code of ["1f636-200d-1f32b", "1f44d-1f3fd", "2764", "1f1e9-1f1ea", "zulip"]) {
      const res = await rawGet(`${t.baseUrl}/static/generated/emoji/images-twitter-64/${code}.png`);
      expect([code, res.status, res.headers["content-type"]]).toEqual([code, 200, "image/png"]);
    }
    for (const bad of ["images-apple-64/1f389.png", "images-google-64/1f389.svg", "images-google-64/fffff.png", "images-google-64/..%2F..%2Fpackage.json"]) {
      expect((await rawGet(`${t.baseUrl}/static/generated/emoji/${bad}`)).status, bad).toBe(404);
    }
  });

  it("serves the sets' sprite sheets at Zulip's path", async () => {
    const res = await rawGet(`${t.baseUrl}/static/generated/emoji/sheet-google-64.png`);
    expect([res.status, res.headers["content-type"]]).toEqual([200, "image/png"]);
    const meta = await sharp(res.body).metadata();
    expect(meta.width).toBeGreaterThan(3000);
    expect((await rawGet(`${t.baseUrl}/static/generated/emoji/sheet-twitter-64.png`)).status).toBe(200);
    expect((await rawGet(`${t.baseUrl}/static/generated/emoji/sheet-apple-64.png`)).status).toBe(404);
  });
});
