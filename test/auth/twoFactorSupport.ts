import { Secret, TOTP } from "otpauth";
import { expect, vi } from "vitest";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import type { TestServer } from "../support/testApp.js";

/** A browser for the server-rendered pages: a cookie jar kept across requests, HTML asked for. */
export class PageBrowser {
  cookies = new Map<string, string>();
  constructor(private readonly server: TestServer) {}

  private remember(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";") as [string, ...string[]];
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      if (attrs.some((a) => /max-age=0\b/i.test(a) || /expires=Thu, 01 Jan 1970/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(eq + 1));
    }
  }

  async request(method: string, path: string, fields?: Record<string, string>): Promise<{ status: number; html: string; res: Response }> {
    const headers: Record<string, string> = { Accept: "text/html", Cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ") };
    if (fields) headers["Content-Type"] = "application/x-www-form-urlencoded";
    const res = await fetch(this.server.baseUrl + path, { method, redirect: "manual", headers, body: fields && new URLSearchParams(fields).toString() });
    this.remember(res);
    return { status: res.status, html: await res.text(), res };
  }

  get(path: string) {
    return this.request("GET", path);
  }

  /** Posts the form of the page last loaded (its CSRF token from `html`) to `path`. */
  post(path: string, html: string, fields: Record<string, string>) {
    return this.request("POST", path, { csrfmiddlewaretoken: csrfTokenIn(html), ...fields });
  }

  /** The /login/ form with the email and the dev password: the answer to the POST. */
  async logIn(email: string, password = DEV_PASSWORD) {
    const page = await this.get("/login/");
    expect(page.status).toBe(200);
    return this.post("/accounts/login/", page.html, { username: email, password });
  }

  /** The second step's form with a code. */
  sendCode(html: string, code: string) {
    return this.post("/accounts/login/", html, { "two_factor_login_view-current_step": "token", "token-otp_token": code });
  }

  /** GET /json/users/me with this browser's cookies: 200 with a session, 401 without. */
  async ownUserStatus(): Promise<number> {
    return (await this.request("GET", "/json/users/me")).status;
  }

  hasSession(): boolean {
    return this.cookies.has("sessionid");
  }
}

export const csrfTokenIn = (html: string) => /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(html)?.[1] ?? "";

/** The key the setup page shows (spaces removed). */
export const secretIn = (html: string) => (/<code class="secret">([^<]+)<\/code>/.exec(html)?.[1] ?? "").replace(/\s/g, "");

/** The backup codes a page shows. */
export const backupCodesIn = (html: string) => [...html.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].map((m) => m[1] ?? "");

/** The app's code for the key at the (possibly faked) current time. */
export const codeFor = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() });

/** Moves the faked clock (Date only) on by `seconds`: the next time step's code is a new one. */
export function advanceClock(seconds: number): void {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now() + seconds * 1000);
}

/** Sets up two-factor authentication for the browser's signed-in user; returns the key and the backup codes. */
export async function enrol(browser: PageBrowser): Promise<{ secret: string; backupCodes: string[] }> {
  const setup = await browser.get("/account/two_factor/setup/");
  expect(setup.status).toBe(200);
  const secret = secretIn(setup.html);
  const done = await browser.post("/account/two_factor/setup/", setup.html, { otp_token: codeFor(secret) });
  expect(done.status).toBe(200);
  const backupCodes = backupCodesIn(done.html);
  expect(backupCodes).toHaveLength(10);
  return { secret, backupCodes };
}
