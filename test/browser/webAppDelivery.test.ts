import type { ConsoleMessage, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFound } from "../support/browser.js";
import { callJson as call, useWebApp } from "../support/webApp.js";
import { seedChannels } from "../support/seed.js";

// What the app draws with files it loads: KaTeX's stylesheet and fonts for math (fetched when
// math is first shown, allowed by the page's policy) and the emoji sets' images (google, twitter,
// loaded lazily; the characters for screen readers and the clipboard).
const web = useWebApp();
const shots = process.env.PARLEY_SCREENSHOTS; // docs/screenshots when the README's pictures are made
const VERONA = seedChannels.verona.id;

/** Every console error and warning of the page, as text. */
function consoleProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (message: ConsoleMessage) => {
    if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
  });
  return problems;
}

async function send(page: Page, topic: string, content: string): Promise<number> {
  const result = await call(page, "POST", "/messages", { type: "stream", to: String(VERONA), topic, content });
  expect(result.result).toBe("success");
  return result.id;
}

async function setScheme(page: Page, scheme: number, theme: string): Promise<void> {
  expect((await call(page, "PATCH", "/settings", { color_scheme: String(scheme) })).result).toBe("success");
  await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
}

/** Whether an image has loaded, its natural width and its path. */
const loaded = (image: ReturnType<Page["locator"]>) =>
  image.evaluate((img: HTMLImageElement) => [img.complete && img.naturalWidth > 0, img.naturalWidth, new URL(img.src).pathname, img.loading]);

const MATH = "Euler: $$e^{i\\pi} + 1 = 0$$ and $$x^2$$ :tada: :octopus:\n```math\n\\int_0^1 x^2\\,dx = \\frac{1}{3}\n```";

describe.skipIf(!chromiumFound)("the web app's math and emoji images in Chromium", () => {
  let hamlet: Page;
  let problems: string[];

  beforeAll(async () => {
    await web.setUp();
    hamlet = await web.signIn("King Hamlet");
    problems = consoleProblems(hamlet);
  }, 120_000);
  afterAll(async () => {
    await web.tearDown();
  });

  it("draws math once, with KaTeX's stylesheet and fonts loaded on demand, and no policy errors", async () => {
    await hamlet.goto(`${web.server.baseUrl}/#inbox`);
    await hamlet.waitForSelector(".sidebar .channels");
    // No math shown yet: KaTeX's stylesheet is not loaded.
    expect(await hamlet.locator("link[rel=stylesheet][href*='katexStyle']").count()).toBe(0);

    const id = await send(hamlet, "math", MATH);
    await hamlet.goto(`${web.server.baseUrl}/#narrow/channel/1-Verona/topic/math`);
    const content = hamlet.locator(`.message[data-id='${id}'] .content`);
    await content.locator(".katex").first().waitFor();
    await expect.poll(() => hamlet.locator("link[rel=stylesheet][href*='katexStyle']").count()).toBe(1);

    // Each formula is seen once: KaTeX's MathML copy (for screen readers) is clipped to a pixel,
    // its HTML drawing is laid out with the sizes of its inline style attributes.
    await expect
      .poll(() => content.locator(".katex-mathml").evaluateAll((els) => els.map((el) => Math.round(el.getBoundingClientRect().width))))
      .toEqual([1, 1, 1]);
    const struts = await content.locator(".katex-html .strut").evaluateAll((els) => els.map((el) => (el as HTMLElement).getBoundingClientRect().height));
    expect(struts.length).toBeGreaterThan(2);
    expect(struts.every((h) => h > 5)).toBe(true);
    const seen = await content.evaluate((el) => (el as HTMLElement).innerText);
    expect(seen.match(/e\s*iπ/g)?.length ?? 0).toBeLessThanOrEqual(1);

    // KaTeX's own fonts drew it.
    await expect
      .poll(() =>
        hamlet.evaluate(
          async () => (
            await document.fonts.ready,
            [...document.fonts].filter((f) => f.family.startsWith("KaTeX") && f.status === "loaded").map((f) => f.family)
          ),
        ),
      )
      .toContain("KaTeX_Math");
    expect(
      await content
        .locator(".katex .mathnormal")
        .first()
        .evaluate((el) => getComputedStyle(el).fontFamily),
    ).toContain("KaTeX_Math");
    const fonts = await hamlet.evaluate(() =>
      performance
        .getEntriesByType("resource")
        .map((e) => new URL(e.name).pathname)
        .filter((p) => p.endsWith(".woff2")),
    );
    expect(fonts.some((p) => /^\/static\/webapp\/KaTeX_Math-Italic-[\w-]+\.woff2$/.test(p))).toBe(true);

    expect(problems.filter((p) => /Content Security Policy|Refused to/.test(p))).toEqual([]);
    if (shots) {
      await setScheme(hamlet, 3, "light");
      await hamlet.screenshot({ path: `${shots}/math-emoji-1280-light.png` });
    }
  }, 60_000);

  it("draws emoji as the images of the user's emoji set, lazily, with the characters kept as text", async () => {
    const id = await send(hamlet, "emoji", "Party :tada: with an :octopus:");
    expect((await call(hamlet, "POST", `/messages/${id}/reactions`, { emoji_name: "heart" })).result).toBe("success");
    await hamlet.goto(`${web.server.baseUrl}/#narrow/channel/1-Verona/topic/emoji`);
    const row = hamlet.locator(`.message[data-id='${id}']`);
    const tada = row.locator(".content span.emoji.emoji-1f389 img");
    await expect.poll(() => loaded(tada)).toEqual([true, 64, "/static/generated/emoji/images-google-64/1f389.png", "lazy"]);
    // The image is drawn at the size of the text, not as a 64 px picture.
    const box = await tada.boundingBox();
    expect(box!.width).toBeGreaterThan(12);
    expect(box!.width).toBeLessThan(32);
    // The text of the message is what was written: copied, it has its emoji.
    expect(await row.locator(".content").textContent()).toBe("Party 🎉 with an 🐙");
    expect(await tada.getAttribute("aria-hidden")).toBe("true");
    const heart = row.locator(".reaction img.emoji");
    await expect.poll(() => loaded(heart)).toEqual([true, 64, "/static/generated/emoji/images-google-64/2764.png", "lazy"]);

    // Twitter's set, switched live.
    expect((await call(hamlet, "PATCH", "/settings", { emojiset: "twitter" })).result).toBe("success");
    await expect.poll(() => loaded(tada)).toEqual([true, 64, "/static/generated/emoji/images-twitter-64/1f389.png", "lazy"]);
    await expect.poll(() => loaded(heart)).toEqual([true, 64, "/static/generated/emoji/images-twitter-64/2764.png", "lazy"]);

    // The emoji picker draws the set's images too, only those in view.
    await row.hover();
    await row.locator("button[title='Add emoji reaction']").click();
    await hamlet.waitForSelector(".emoji-picker .emoji-grid button img.emoji.unicode");
    await expect.poll(async () => (await loaded(hamlet.locator(".emoji-grid button img.emoji.unicode").first())).slice(0, 2)).toEqual([true, 64]);
    const requested = () => hamlet.evaluate(() => performance.getEntriesByType("resource").filter((e) => e.name.includes("/images-twitter-64/")).length);
    const buttons = await hamlet.locator(".emoji-grid button").count();
    expect(buttons).toBeGreaterThan(150);
    const firstScreen = await requested();
    expect(firstScreen).toBeLessThan(buttons / 2);
    expect(await hamlet.locator(".emoji-grid button img.emoji.unicode").count()).toBeLessThan(buttons / 2);
    // Scrolled to the end, the last emoji's image is asked for and drawn.
    await hamlet.locator(".emoji-grid").evaluate((grid) => grid.scrollTo(0, grid.scrollHeight));
    await expect.poll(async () => (await loaded(hamlet.locator(".emoji-grid button").last().locator("img.emoji.unicode"))).slice(0, 2)).toEqual([true, 64]);
    expect(await requested()).toBeGreaterThan(firstScreen);
    if (shots) await hamlet.screenshot({ path: `${shots}/emoji-picker-scrolled.png` });
    await hamlet.keyboard.press("Escape");

    // Plain text: no images.
    expect((await call(hamlet, "PATCH", "/settings", { emojiset: "text" })).result).toBe("success");
    await expect.poll(() => row.locator(".content span.emoji.emoji-1f389").textContent()).toBe(":tada:");
    expect(await row.locator("img.emoji, img.emoji-image").count()).toBe(0);
    expect((await call(hamlet, "PATCH", "/settings", { emojiset: "google" })).result).toBe("success");
    await expect.poll(() => loaded(tada)).toEqual([true, 64, "/static/generated/emoji/images-google-64/1f389.png", "lazy"]);
    expect(problems.filter((p) => /Content Security Policy|Refused to|Failed to load/.test(p))).toEqual([]);
  }, 60_000);

  it("shows math and the twitter set on a phone in the dark theme", async () => {
    const phone = await web.signIn("King Hamlet", { viewport: { width: 390, height: 844 } });
    const phoneProblems = consoleProblems(phone);
    expect((await call(phone, "PATCH", "/settings", { emojiset: "twitter" })).result).toBe("success");
    await setScheme(phone, 2, "dark");
    await phone.goto(`${web.server.baseUrl}/#narrow/channel/1-Verona/topic/math`);
    await phone.locator(".message .katex").first().waitFor();
    const tada = phone.locator(".message .content span.emoji.emoji-1f389 img");
    await expect.poll(() => loaded(tada)).toEqual([true, 64, "/static/generated/emoji/images-twitter-64/1f389.png", "lazy"]);
    // The display formula fits the screen.
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(phoneProblems.filter((p) => /Content Security Policy|Refused to/.test(p))).toEqual([]);
    if (shots) await phone.screenshot({ path: `${shots}/math-emoji-phone-dark.png` });
    await call(phone, "PATCH", "/settings", { emojiset: "google", color_scheme: "1" });
  }, 60_000);
});
