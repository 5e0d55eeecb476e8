import { expect } from "vitest";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import type { TestServer } from "./testApp.js";

/**
 * A browser for the server-rendered pages: a cookie jar kept across requests, HTML asked for,
 * redirects not followed, and forms posted with the CSRF token of the page they came from.
 */
export class PageBrowser {
  cookies = new Map<string, string>();
  constructor(
    protected readonly server: TestServer,
    private readonly headers: Record<string, string> = {},
  ) {}

  private remember(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";") as [string, ...string[]]; // split gives at least one part
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      if (attrs.some((a) => /max-age=0\b/i.test(a) || /expires=Thu, 01 Jan 1970/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(eq + 1));
    }
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  /** One request; `fields` are sent as a urlencoded form. */
  async request(method: string, path: string, fields?: Record<string, string>): Promise<{ status: number; html: string; res: Response }> {
    const headers: Record<string, string> = { ...this.headers, Accept: "text/html", Cookie: this.cookieHeader() };
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

  /** Loads the page and submits its form with `fields` (and the page's CSRF token). */
  async submit(path: string, fields: Record<string, string>) {
    const page = await this.get(path);
    expect(page.status).toBe(200);
    return this.post(path, page.html, fields);
  }

  /** GET /json<path> with this browser's session. */
  async json(path: string): Promise<any> {
    const res = await fetch(`${this.server.baseUrl}/json${path}`, { headers: { Cookie: this.cookieHeader() } });
    expect(res.status).toBe(200);
    return res.json();
  }

  /** The /login/ form with the email and the dev password: the answer to the POST. */
  async logIn(email: string, password = DEV_PASSWORD) {
    const page = await this.get("/login/");
    expect(page.status).toBe(200);
    return this.post("/accounts/login/", page.html, { username: email, password });
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
