import { describe, expect, it } from "vitest";
import { useSmtpSink, type ReceivedEmail } from "./support/smtpSink.js";
import { expectSuccess, fetchWithHost, type TestServer, useTestServer } from "./support/testApp.js";
import { csrfTokenIn } from "./support/pageBrowser.js";

// Creating an organization at /new/ on the root domain (PARLEY_ORGANIZATION_SIGNUP), as a browser
// and a mail client see it: the address, the emailed link, the creation form, the new organization.
const ROOT = "parley.test";
const rateLimits = {
  enabled: true,
  user: { max: 10_000, windowSeconds: 60 },
  ip: { max: 10_000, windowSeconds: 60 },
  login: { max: 100, windowSeconds: 1800 },
  email: { max: 3, windowSeconds: 3600 },
};
const smtp = useSmtpSink();
const t = useTestServer(
  Object.assign(smtp.overrides, { rootDomain: ROOT, externalUrl: `http://${ROOT}:9991`, organizationSignup: true, trustedProxies: ["127.0.0.1"], rateLimits }),
);
const off = useTestServer({ rootDomain: ROOT, externalUrl: `http://${ROOT}:9991`, organizationSignup: false });

let nextIp = 1;

/** A browser at one host name: a cookie jar, HTML asked for, redirects not followed, its own client address. */
class HostBrowser {
  cookies = new Map<string, string>();
  constructor(
    private readonly server: TestServer,
    private readonly host = ROOT,
    private readonly ip = `10.1.0.${nextIp++}`,
  ) {}

  async request(method: string, path: string, fields?: Record<string, string>): Promise<{ status: number; html: string; res: Response }> {
    const headers: Record<string, string> = {
      Accept: "text/html",
      "X-Forwarded-For": this.ip,
      Cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
    };
    if (fields) headers["Content-Type"] = "application/x-www-form-urlencoded";
    const res = await fetchWithHost(this.server.baseUrl + path, this.host, { method, headers, body: fields && new URLSearchParams(fields).toString() });
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(";")[0]!;
      const eq = pair.indexOf("=");
      if (/max-age=0\b|expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(pair.slice(0, eq));
      else this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return { status: res.status, html: await res.text(), res };
  }

  /** Loads `path` and posts its form back with `fields` and the page's CSRF token. */
  async submit(path: string, fields: Record<string, string>) {
    const page = await this.request("GET", path);
    expect(page.status, page.html).toBe(200);
    return this.request("POST", path, { csrfmiddlewaretoken: csrfTokenIn(page.html), ...fields });
  }
}

async function realmCount(server: TestServer): Promise<number> {
  return (await server.ctx.db.kysely.selectFrom("realms").select("id").execute()).length;
}

/** Asks for a link for `email`; returns the link's path once the email has arrived. */
async function signupLink(email: string): Promise<string> {
  const since = smtp.sink().messages.length;
  const posted = await new HostBrowser(t).submit("/new/", { email });
  expect(posted.status, posted.html).toBe(200);
  expect(posted.html).toContain("<h1>Check your email</h1>");
  await t.drainJobs();
  const mail: ReceivedEmail = await smtp.sink().waitFor((m) => smtp.sink().messages.indexOf(m) >= since && m.rcptTo.includes(email));
  expect(mail.parsed.subject).toBe("Create your organization");
  const link = new RegExp(`<http://${ROOT.replace(".", "\\.")}:9991(/new/confirm/[A-Za-z0-9]{32}/)>`).exec(mail.parsed.text ?? "")?.[1];
  expect(link, mail.parsed.text).toBeDefined();
  return link!;
}

const goodForm = { realm_name: "Lemur Labs", realm_subdomain: "lemur", full_name: "Lena Lemur", password: "a long secret" };

describe("the whole sign-up", () => {
  it("creates the organization and its owner, who signs in at the new subdomain", async () => {
    const link = await signupLink("lena@lemur.test");
    const browser = new HostBrowser(t);
    const form = await browser.request("GET", link);
    expect(form.status).toBe(200);
    expect(form.html).toContain('value="lena@lemur.test" readonly');
    expect(form.html).toContain(`&lt;subdomain&gt;.${ROOT}`);
    // The form may send the browser on to the new organization's host.
    expect(form.res.headers.get("content-security-policy")).toContain(`form-action 'self' http://*.${ROOT}:9991`);

    const created = await browser.request("POST", link, { csrfmiddlewaretoken: csrfTokenIn(form.html), ...goodForm });
    expect(created.status, created.html).toBe(302);
    expect(created.res.headers.get("location")).toBe(`http://lemur.${ROOT}:9991/login/`);

    const realm = await t.ctx.db.kysely.selectFrom("realms").selectAll().where("string_id", "=", "lemur").executeTakeFirstOrThrow();
    expect(realm.name).toBe("Lemur Labs");
    const key = expectSuccess(
      await t.post(null, "/api/v1/fetch_api_key", { username: "lena@lemur.test", password: goodForm.password }, { host: `lemur.${ROOT}` }),
    ) as { api_key: string };
    const auth = { Authorization: `Basic ${Buffer.from(`lena@lemur.test:${key.api_key}`).toString("base64")}` };
    const me = expectSuccess(await t.get(null, "/api/v1/users/me", {}, { host: `lemur.${ROOT}`, headers: auth }));
    expect(me).toMatchObject({ email: "lena@lemur.test", full_name: "Lena Lemur", role: 100, is_owner: true });
    const owner = await t.ctx.db.kysely.selectFrom("users").selectAll().where("delivery_email", "=", "lena@lemur.test").executeTakeFirstOrThrow();
    expect(owner.realm_id).toBe(realm.id);
    // Set up as every new organization: Zulip's initial channels, the owner subscribed.
    const subs = expectSuccess(await t.get(null, "/api/v1/users/me/subscriptions", {}, { host: `lemur.${ROOT}`, headers: auth })) as {
      subscriptions: Array<{ name: string }>;
    };
    expect(subs.subscriptions.map((s) => s.name).sort()).toEqual(["Zulip", "general", "sandbox"]);

    // The link works once.
    const again = await new HostBrowser(t).request("GET", link);
    expect(again.status).toBe(404);
    expect(again.html).toContain("already been used");
    const count = await realmCount(t);
    // Posting the form again (with a fresh form token) creates nothing either.
    const other = new HostBrowser(t);
    const token = csrfTokenIn((await other.request("GET", "/new/")).html);
    const reused = await other.request("POST", link, { csrfmiddlewaretoken: token, ...goodForm, realm_subdomain: "lemur-two" });
    expect(reused.status).toBe(404);
    expect(reused.html).toContain("already been used");
    expect(await realmCount(t)).toBe(count);
  });

  it("sends a link to any valid address, also one that already has accounts", async () => {
    const link = await signupLink("hamlet@zulip.com");
    expect((await new HostBrowser(t).request("GET", link)).status).toBe(200);
  });
});

describe("the creation form", () => {
  it("refuses malformed, reserved and taken subdomains and other bad fields, creating nothing", async () => {
    const link = await signupLink("owner@bad.test");
    const browser = new HostBrowser(t);
    const page = await browser.request("GET", link);
    const before = await realmCount(t);
    const refusals: Array<[Partial<typeof goodForm>, string, string]> = [
      [{ realm_subdomain: "ab" }, "realm_subdomain", "Subdomain needs to have length 3 or greater."],
      [{ realm_subdomain: "x".repeat(41) }, "realm_subdomain", "Subdomain can have at most 40 characters."],
      [{ realm_subdomain: "Bad_Id" }, "realm_subdomain", "Subdomain can only have lowercase letters, numbers, and '-'s."],
      [{ realm_subdomain: "-abc" }, "realm_subdomain", "Subdomain cannot start or end with a '-'."],
      [{ realm_subdomain: "" }, "realm_subdomain", "Choose a subdomain for your organization."],
      [{ realm_subdomain: "www" }, "realm_subdomain", "Subdomain reserved. Please choose a different one."],
      [{ realm_subdomain: "apis" }, "realm_subdomain", "Subdomain reserved. Please choose a different one."],
      [{ realm_subdomain: "zulipinternal" }, "realm_subdomain", "Subdomain already in use. Please choose a different one."],
      [{ realm_subdomain: "zulip" }, "realm_subdomain", "Subdomain already in use. Please choose a different one."],
      [{ realm_name: "  " }, "realm_name", "Enter a name for your organization."],
      [{ realm_name: "n".repeat(41) }, "realm_name", "The organization name can have at most 40 characters."],
      [{ full_name: "" }, "full_name", "Name too short!"],
      [{ password: "abc" }, "password", "The password is too weak."],
    ];
    for (const [change, fieldName, message] of refusals) {
      const res = await browser.request("POST", link, { csrfmiddlewaretoken: csrfTokenIn(page.html), ...goodForm, realm_subdomain: "fine-name", ...change });
      expect(res.status, JSON.stringify(change)).toBe(400);
      expect(res.html, JSON.stringify(change)).toContain(`<p class="error" id="${fieldName}-error">${message}</p>`);
      expect(res.html).toContain('aria-invalid="true"');
    }
    // Several problems are shown together, and what was typed stays (but the password).
    const several = await browser.request("POST", link, { csrfmiddlewaretoken: csrfTokenIn(page.html), ...goodForm, realm_subdomain: "ab", password: "x" });
    expect(several.html).toContain('id="realm_subdomain-error"');
    expect(several.html).toContain('id="password-error"');
    expect(several.html).toContain('value="Lemur Labs"');
    expect(several.html).not.toContain(goodForm.password);
    expect(await realmCount(t)).toBe(before);
    expect(await t.ctx.db.kysely.selectFrom("users").select("id").where("delivery_email", "=", "owner@bad.test").execute()).toEqual([]);
    // The link still works.
    const made = await browser.request("POST", link, { csrfmiddlewaretoken: csrfTokenIn(page.html), ...goodForm, realm_subdomain: "fine-name" });
    expect(made.status, made.html).toBe(302);
    expect(made.res.headers.get("location")).toBe(`http://fine-name.${ROOT}:9991/login/`);
  });

  it("refuses a post without the form's CSRF token", async () => {
    const link = await signupLink("csrf@bad.test");
    const browser = new HostBrowser(t);
    await browser.request("GET", link);
    const before = await realmCount(t);
    const res = await browser.request("POST", link, { ...goodForm, realm_subdomain: "csrf-org" });
    expect(res.status).toBe(403);
    expect(res.html).toContain("CSRF verification failed");
    expect(await realmCount(t)).toBe(before);
  });

  it("shows a clear page for an expired or unknown link", async () => {
    const link = await signupLink("late@bad.test");
    await t.ctx.db.kysely.updateTable("confirmations").set({ expires_at: 1 }).where("kind", "=", "organization_signup").where("used_at", "is", null).execute();
    const expired = await new HostBrowser(t).request("GET", link);
    expect(expired.status).toBe(404);
    expect(expired.html).toContain("This link has expired");
    const unknown = await new HostBrowser(t).request("GET", `/new/confirm/${"a".repeat(32)}/`);
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain("This link is not valid");
    expect((await new HostBrowser(t).request("GET", "/new/confirm/short/")).status).toBe(404);
  });
});

describe("POST /new/", () => {
  it("refuses bad addresses and sends nothing", async () => {
    const confirmations = async () =>
      (await t.ctx.db.kysely.selectFrom("confirmations").select("id").where("kind", "=", "organization_signup").execute()).length;
    const before = await confirmations();
    const sent = smtp.sink().messages.length;
    for (const [email, message] of [
      ["not-an-email", "Enter a valid email address."],
      ["", "Please enter your email address."],
      ["welcome-bot@zulip.com", "welcome-bot@zulip.com is reserved for system bots"],
    ] as const) {
      const res = await new HostBrowser(t).submit("/new/", { email });
      expect(res.status, email).toBe(400);
      expect(res.html).toContain(`<p class="error" id="email-error" role="alert">${message}</p>`);
    }
    await t.drainJobs();
    expect(await confirmations()).toBe(before);
    expect(smtp.sink().messages.length).toBe(sent);
  });

  it("is limited per address and per client address", async () => {
    const rule = t.ctx.config.rateLimits.email;
    for (let i = 0; i < rule.max; i++) expect((await new HostBrowser(t).submit("/new/", { email: "many@limit.test" })).status).toBe(200);
    const over = await new HostBrowser(t).submit("/new/", { email: "Many@limit.test" });
    expect(over.status).toBe(429);
    expect(Number(over.res.headers.get("retry-after"))).toBeGreaterThan(0);
    const oneClient = new HostBrowser(t);
    for (let i = 0; i < rule.max; i++) expect((await oneClient.submit("/new/", { email: `other${i}@limit.test` })).status).toBe(200);
    expect((await oneClient.submit("/new/", { email: "another@limit.test" })).status).toBe(429);
  });
});

describe("where /new/ is served", () => {
  it("answers 404 on an organization's host", async () => {
    const link = await signupLink("host@bad.test");
    for (const host of [`zulip.${ROOT}`, `lemur.${ROOT}`, "elsewhere.example"]) {
      for (const path of ["/new/", link]) expect((await new HostBrowser(t, host).request("GET", path)).status, `${host}${path}`).toBe(404);
      expect((await new HostBrowser(t, host).request("POST", "/new/", { email: "x@y.test" })).status).toBe(404);
    }
    expect((await new HostBrowser(t, `${ROOT}:9991`).request("GET", "/new/")).status).toBe(200);
  });

  it("answers 404 everywhere when the setting is off", async () => {
    for (const host of [ROOT, `zulip.${ROOT}`]) {
      for (const path of ["/new/", `/new/confirm/${"a".repeat(32)}/`]) {
        const res = await new HostBrowser(off, host).request("GET", path);
        expect(res.status).toBe(404);
        expect(res.html).not.toContain("organization");
      }
      expect((await new HostBrowser(off, host).request("POST", "/new/", { email: "x@y.test" })).status).toBe(404);
    }
  });
});
