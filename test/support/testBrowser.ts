/**
 * A browser's part in a redirect chain, for sign-in tests: it keeps each site's cookies, follows
 * redirects one hop at a time, and sends what the server names as its own URL (the test server's
 * externalUrl, http://localhost:9991) to the test server's real address.
 */

export interface Hop {
  url: string;
  status: number;
  /** The Location of a redirect, resolved. */
  location: string | null;
  text: string;
}

export class TestBrowser {
  /** Cookies by origin, then name (paths are ignored: each test uses a fresh browser). */
  private readonly jar = new Map<string, Map<string, string>>();

  constructor(private readonly aliases: Record<string, string> = {}) {}

  /** The real address of a URL a server gave. */
  resolve(url: string): string {
    for (const [alias, real] of Object.entries(this.aliases)) if (url.startsWith(alias)) return real + url.slice(alias.length);
    return url;
  }

  cookie(url: string, name: string): string | undefined {
    return this.jar.get(new URL(this.resolve(url)).origin)?.get(name);
  }

  setCookie(url: string, name: string, value: string): void {
    const origin = new URL(this.resolve(url)).origin;
    const cookies = this.jar.get(origin) ?? new Map<string, string>();
    cookies.set(name, value);
    this.jar.set(origin, cookies);
  }

  /** One request, no redirect followed. */
  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Hop> {
    const target = this.resolve(url);
    const origin = new URL(target).origin;
    const cookies = [...(this.jar.get(origin) ?? new Map<string, string>())].map(([k, v]) => `${k}=${v}`).join("; ");
    const headers: Record<string, string> = {};
    if (cookies) headers.Cookie = cookies;
    let body: string | undefined;
    if (init.form) {
      headers["Content-Type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(init.form).toString();
    }
    const res = await fetch(target, { method: init.method ?? (init.form ? "POST" : "GET"), headers, body, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) this.store(origin, line);
    const location = res.headers.get("location");
    return { url: target, status: res.status, location: location === null ? null : new URL(location, target).href, text: await res.text() };
  }

  /** Follows redirects from `url` until a page (or `stop` says a Location is far enough); every hop. */
  async follow(url: string, options: { form?: Record<string, string>; stop?: (location: string) => boolean } = {}): Promise<Hop[]> {
    const hops: Hop[] = [];
    let hop = await this.request(url, { form: options.form });
    hops.push(hop);
    while (hop.location && !(options.stop?.(hop.location) ?? false) && !hop.location.startsWith("zulip:")) {
      if (hops.length > 12) throw new Error(`too many redirects: ${hops.map((h) => h.url).join(" → ")}`);
      hop = await this.request(hop.location);
      hops.push(hop);
    }
    return hops;
  }

  private store(origin: string, line: string): void {
    const [pair = "", ...attributes] = line.split(";").map((part) => part.trim());
    const eq = pair.indexOf("=");
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    const cookies = this.jar.get(origin) ?? new Map<string, string>();
    const expired = attributes.some((a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && Date.parse(a.slice(8)) < Date.now()));
    if (expired || value === "") cookies.delete(name);
    else cookies.set(name, value);
    this.jar.set(origin, cookies);
  }
}
