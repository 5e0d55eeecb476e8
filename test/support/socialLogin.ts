import type { Config } from "../../src/config.js";
import type { TestServer } from "./testApp.js";
import { TestBrowser } from "./testBrowser.js";

/**
 * Sign-in tests through identity providers on loopback: the provider is started before the
 * Parley server, whose configuration names it, so the test fills `overrides.auth` in a beforeAll
 * registered before useTestServer's.
 */

/** A fresh browser for the test server (its externalUrl, which providers redirect to, is the server). */
export function browserFor(t: TestServer): TestBrowser {
  return new TestBrowser({ [t.config.externalUrl.replace(/\/$/, "")]: t.baseUrl });
}

/** Who the browser's session is signed in as (GET /json/users/me with its cookies), or null. */
export async function signedInAs(t: TestServer, browser: TestBrowser): Promise<string | null> {
  const hop = await browser.request(`${t.baseUrl}/json/users/me`);
  if (hop.status !== 200) return null;
  return (JSON.parse(hop.text) as { delivery_email?: string; email: string }).delivery_email ?? null;
}

export type ServerOverrides = Partial<Config>;
