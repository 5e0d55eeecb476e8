import type { Browser, Page } from "playwright-core";
// @ts-expect-error: a JavaScript module without types
import { build, isBuilt } from "../../scripts/build.mjs";
import { launchChromium } from "./browser.js";
import { freePort, type ServerProcess, useServerProcesses } from "./process.js";

export interface SignInOptions {
  viewport?: { width: number; height: number };
  /** Accept every confirm()/alert() the page opens (deletions, deactivations). */
  acceptDialogs?: boolean;
}

/**
 * The browser tests' common setup: a server process in development mode (Zulip's development
 * organization, fast hashing, no rate limits) on a fixed port, Chromium, and people signed in
 * through /devlogin/. Call `setUp` in the file's `beforeAll` and `tearDown` in its `afterAll`
 * (inside `describe.skipIf(!chromiumFound)`, so a machine without Chromium skips them).
 */
export function useWebApp() {
  const servers = useServerProcesses();
  let closeBrowser: (() => Promise<void>) | undefined;
  const app = {
    server: undefined as unknown as ServerProcess,
    browser: undefined as unknown as Browser,
    /** The database's environment, kept for restarts. */
    env: {} as Record<string, string>,
    servers,

    /** Builds dist/web when web/ changed, makes a database, starts the server and Chromium. */
    async setUp(extraEnv: Record<string, string> = {}): Promise<void> {
      if (!isBuilt()) await build();
      app.env = { ...(await servers.freshEnv()), ...extraEnv };
      await app.startServer(await freePort());
      ({ browser: app.browser, close: closeBrowser } = await launchChromium());
    },

    /** Starts (or, after `server.stop()`, restarts) the server on `port`. */
    async startServer(port: number): Promise<void> {
      app.server = await servers.start({
        PARLEY_DEV: "1",
        PARLEY_INSECURE_FAST_HASHING: "1",
        PARLEY_RATE_LIMITS: "0",
        ...app.env,
        PARLEY_PORT: String(port),
        PARLEY_EXTERNAL_URL: `http://127.0.0.1:${port}`,
      });
    },

    async tearDown(): Promise<void> {
      await closeBrowser?.();
    },

    /** A new browser context signed in as the development user named `name`, the app loaded. */
    async signIn(name: string, options: SignInOptions = {}): Promise<Page> {
      const context = await app.browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 800 } });
      const page = await context.newPage();
      page.on("pageerror", (error) => console.error(`${name}'s page:`, error));
      if (options.acceptDialogs) page.on("dialog", (dialog) => void dialog.accept());
      await page.goto(`${app.server.baseUrl}/devlogin/`);
      await page.click(`button:has-text(${JSON.stringify(name)})`);
      await page.waitForSelector(".sidebar .channels", { state: "attached" });
      return page;
    },
  };
  return app;
}

/** A /json call from inside a page, with its session and CSRF token; resolves to the JSON answer. */
export function callJson(page: Page, method: string, path: string, params: Record<string, string> = {}): Promise<any> {
  return page.evaluate(
    async ([m, p, body]) => {
      const token = document.querySelector<HTMLMetaElement>('meta[name="parley-csrf-token"]')!.content;
      const query = m === "GET" ? `?${new URLSearchParams(body)}` : "";
      const res = await fetch(`/json${p}${query}`, { method: m, headers: { "X-CSRFToken": token }, body: m === "GET" ? undefined : new URLSearchParams(body) });
      return res.json();
    },
    [method, path, params] as const,
  );
}

/** The unread count shown next to a sidebar entry (0 when none is shown). */
export async function sidebarCount(page: Page, selector: string): Promise<number> {
  const count = page.locator(`${selector} > a .count`);
  return (await count.count()) === 0 ? 0 : Number(await count.textContent());
}

/**
 * Opens the compose box (closed by default, as Zulip's) and waits for its message field: the reply
 * button for the conversation on screen, else "Start new conversation". Nothing when it is open.
 */
export async function openCompose(page: Page): Promise<void> {
  const textarea = page.locator(".compose textarea");
  if ((await textarea.count()) === 0) {
    const reply = page.locator(".compose .reply-button");
    await reply.waitFor({ timeout: 2000 }).catch(() => {});
    if ((await textarea.count()) === 0) await ((await reply.count()) > 0 ? reply : page.locator(".compose .new-topic-button")).click();
  }
  await textarea.waitFor();
}

/** Opens the view at `hashText`, waits for `waitFor`, and leaves nothing focused: keys then go to the page, as after a click on an empty part of it. */
export async function openUnfocused(page: Page, hashText: string, waitFor: string): Promise<void> {
  await page.evaluate((h) => (location.hash = h), hashText);
  await page.waitForSelector(waitFor);
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
}

/** Sends a channel message as the page's user through the API; resolves to its id (throws when refused). */
export async function sendToChannel(page: Page, channelId: number, topic: string, content: string): Promise<number> {
  const result = await callJson(page, "POST", "/messages", { type: "stream", to: String(channelId), topic, content });
  if (result.result !== "success") throw new Error(`POST /messages was refused: ${JSON.stringify(result)}`);
  return result.id as number;
}
