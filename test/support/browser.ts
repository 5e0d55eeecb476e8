import fs from "node:fs";
import type { Browser } from "playwright-core";

/**
 * Chromium for the browser tests: Debian's `chromium` package (installed by .ci/run), driven by
 * playwright-core. Without it the browser tests are skipped with a message saying so.
 */
export const CHROMIUM = process.env.PARLEY_TEST_CHROMIUM ?? "/usr/bin/chromium";
export const chromiumFound = fs.existsSync(CHROMIUM);

if (!chromiumFound) {
  console.warn(`Browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set PARLEY_TEST_CHROMIUM).`);
}

/** Chromium headless, with nothing that reaches out to the network (it hangs on the closed network otherwise). */
export async function launchChromium(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    // Playwright gives every launch a fresh --user-data-dir of its own (it refuses one in args).
  });
  return {
    browser,
    close: async () => {
      await browser.close();
    },
  };
}
