import { beforeAll, describe, expect, it } from "vitest";
import { transaction } from "../../src/appContext.js";
import { doCreateUser } from "../../src/actions/createUser.js";
import { doSetUpNewRealm } from "../../src/actions/onboarding.js";
import { doCreateRealm } from "../../src/actions/realms.js";
import { Role } from "../../src/models/roles.js";
import { csrfTokenIn } from "../support/pageBrowser.js";
import { useSmtpSink, type ReceivedEmail } from "../support/smtpSink.js";
import { expectSuccess, fetchWithHost, useTestServer } from "../support/testApp.js";

// With a root domain every organization's links are on its own host (Zulip's realm.url): the seed
// realm "zulip" at zulip.parley.test, a second one, "acme", at acme.parley.test. Requests always
// carry the organization's Host.

const smtp = useSmtpSink();
const t = useTestServer(Object.assign(smtp.overrides, { rootDomain: "parley.test", externalUrl: "http://parley.test:9991" }));

const ZULIP = { host: "zulip.parley.test" };
const ACME = { host: "acme.parley.test" };
const ZULIP_URL = "http://zulip.parley.test:9991";
const ACME_URL = "http://acme.parley.test:9991";
const OWNER = "ada@acme.example";
const MEMBER = "grace@acme.example";

beforeAll(async () => {
  await transaction(t.ctx, async (tx) => {
    const realm = await doCreateRealm(tx, { string_id: "acme", name: "Acme" });
    const owner = await doCreateUser(tx, realm, { email: OWNER, full_name: "Ada", password_hash: null, role: Role.OWNER });
    await doSetUpNewRealm(tx, realm, owner);
    await doCreateUser(tx, realm, { email: MEMBER, full_name: "Grace", password_hash: null });
  });
});

/** The first email to `to` that arrived after `since` emails and matches `subject`, once the jobs ran. */
async function mailTo(to: string, since: number, subject: RegExp): Promise<ReceivedEmail> {
  await t.drainJobs();
  const sink = smtp.sink();
  return sink.waitFor((m) => sink.messages.indexOf(m) >= since && m.rcptTo.includes(to) && subject.test(m.parsed.subject ?? ""));
}

/** Every http(s) URL in the email's text. */
const urlsIn = (mail: ReceivedEmail) => [...(mail.parsed.text ?? "").matchAll(/https?:\/\/[^\s<>)]+/g)].map((m) => m[0]);

describe("links of an organization on its own host", () => {
  it("POST /register names each organization's own URL", async () => {
    const zulip = expectSuccess(await t.post("hamlet", "/api/v1/register", { fetch_event_types: ["realm"] }, ZULIP));
    expect(zulip).toMatchObject({ realm_url: ZULIP_URL, realm_uri: ZULIP_URL, realm_bot_domain: "zulip.parley.test" });
    expect(zulip.server_emoji_data_url).toBe(`${ZULIP_URL}/static/generated/emoji/emoji_api.json`);
    const acme = expectSuccess(await t.post(OWNER, "/api/v1/register", { fetch_event_types: ["realm"] }, ACME));
    expect(acme).toMatchObject({ realm_name: "Acme", realm_url: ACME_URL, realm_uri: ACME_URL, realm_bot_domain: "acme.parley.test" });
  });

  it("an invitation in acme mails a link on acme's host, and the link opens there", async () => {
    const since = smtp.sink().messages.length;
    expectSuccess(await t.post(OWNER, "/api/v1/invites", { invitee_emails: "linus@example.com", stream_ids: [] }, ACME));
    const mail = await mailTo("linus@example.com", since, /invited you to join Acme/);
    const urls = urlsIn(mail);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url.startsWith(`${ACME_URL}/`) || url === ACME_URL, url).toBe(true);
    const link = urls.find((url) => /\/join\/[a-z0-9]{24}\/$/.test(url));
    expect(link, mail.parsed.text).toBeDefined();
    const page = await fetchWithHost(`${t.baseUrl}${new URL(link!).pathname}`, ACME.host, { headers: { Accept: "text/html" } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Acme");

    const reusable = expectSuccess(await t.post(OWNER, "/api/v1/invites/multiuse", { stream_ids: [] }, ACME)).invite_link as string;
    expect(reusable).toMatch(new RegExp(`^${ACME_URL}/join/[a-z0-9]{24}/$`));
    const listed = expectSuccess(await t.get(OWNER, "/api/v1/invites", {}, ACME)).invites as Array<{ is_multiuse: boolean; link_url?: string }>;
    expect(listed.filter((i) => i.is_multiuse).map((i) => i.link_url)).toEqual([reusable]);
    // The seed organization's links stay on its own host.
    const zulipLink = expectSuccess(await t.post("iago", "/api/v1/invites/multiuse", { stream_ids: [] }, ZULIP)).invite_link as string;
    expect(zulipLink.startsWith(`${ZULIP_URL}/join/`)).toBe(true);
  });

  it("a password reset for an acme account links to acme", async () => {
    const form = await fetchWithHost(`${t.baseUrl}/accounts/password/reset/`, ACME.host, { headers: { Accept: "text/html" } });
    expect(form.status).toBe(200);
    const cookie = form.headers
      .getSetCookie()
      .map((line) => line.split(";")[0])
      .join("; ");
    const since = smtp.sink().messages.length;
    const posted = await fetchWithHost(`${t.baseUrl}/accounts/password/reset/`, ACME.host, {
      method: "POST",
      headers: { Accept: "text/html", Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfmiddlewaretoken: csrfTokenIn(await form.text()), email: MEMBER }).toString(),
    });
    expect(posted.status).toBe(302);
    const mail = await mailTo(MEMBER, since, /^Reset your password for Acme/);
    expect(mail.parsed.text).toContain(`in Acme (${ACME_URL})`);
    const link = urlsIn(mail).find((url) => url.includes("/accounts/password/reset/"));
    expect(link).toMatch(new RegExp(`^${ACME_URL}/accounts/password/reset/[A-Za-z0-9_-]+/[A-Za-z0-9]{32}/$`));
    const page = await fetchWithHost(`${t.baseUrl}${new URL(link!).pathname}`, ACME.host, { headers: { Accept: "text/html" } });
    expect(page.status).toBe(200);
  });

  it("a missed-message email's links are on acme's host", async () => {
    const grace = await t.user(MEMBER);
    const since = smtp.sink().messages.length;
    expectSuccess(await t.post(OWNER, "/api/v1/messages", { type: "direct", to: [grace.id], content: "Are you there?" }, ACME));
    await t.ctx.db.kysely.updateTable("jobs").set({ run_at: 0 }).where("kind", "=", "missed_message_email").where("status", "=", "pending").execute();
    const mail = await mailTo(MEMBER, since, /^DMs with Ada$/);
    expect(mail.parsed.text).toMatch(new RegExp(`Reply in Zulip: ${ACME_URL}/#narrow/near/\\d+`));
    expect(mail.parsed.html).toContain(`href="${ACME_URL}/#narrow/near/`);
    for (const url of urlsIn(mail)) expect(url.startsWith(`${ACME_URL}/`), url).toBe(true);
  });

  it("a data export's URL is on acme's host", async () => {
    const id = expectSuccess(await t.post(OWNER, "/api/v1/export/realm", { export_type: 1 }, ACME)).id as number;
    await t.drainJobs();
    const exports = expectSuccess(await t.get(OWNER, "/api/v1/export/realm", {}, ACME)).exports as Array<{ id: number; export_url: string | null }>;
    const done = exports.find((e) => e.id === id);
    expect(done?.export_url).toMatch(new RegExp(`^${ACME_URL}/user_avatars/.+\\.tar\\.gz$`));
  });

  it("a bot's address and a hidden display email are at acme's host", async () => {
    const bot = expectSuccess(await t.post(OWNER, "/api/v1/bots", { full_name: "Helper", short_name: "helper" }, ACME));
    const created = await t.ctx.db.kysely.selectFrom("users").select("email").where("id", "=", bot.user_id).executeTakeFirstOrThrow();
    expect(created.email).toBe("helper-bot@acme.parley.test");
    expectSuccess(await t.patch(MEMBER, "/api/v1/settings", { email_address_visibility: 4 }, ACME));
    const grace = await t.user(MEMBER);
    expect(grace.email).toBe(`user${grace.id}@acme.parley.test`);
  });
});
