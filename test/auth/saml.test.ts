import fs from "node:fs";
import samlify from "samlify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { samlBackend } from "../../src/auth/saml.js";
import { authSettingsSchema } from "../../src/auth/settings.js";
import type { Config } from "../../src/config.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";
import { fixture, readForm, TestIdp, type PostedForm } from "./samlIdp.js";

/**
 * SAML sign-in end to end: Parley redirects the browser to a real IdP (samlify's, on
 * 127.0.0.1) with a signed AuthnRequest; the IdP answers with a signed Response in a form the
 * test posts to /complete/saml/, as the browser would; the session cookie Parley sets then
 * works on /json/users/me. Every way an assertion can be wrong is refused, with nothing signed in.
 */

const OKTA = "https://idp.example.test/okta";
const SECOND = "https://idp.example.test/second";
const SP_ENTITY_ID = "http://localhost:9991/saml/metadata.xml";
const ACS_URL = "http://localhost:9991/complete/saml/";

const okta = new TestIdp(OKTA, "idp");
// The same key as okta's, under another entityID: its assertions are validly signed for okta's certificate.
const second = new TestIdp(SECOND, "idp");
// Claims to be okta, signs with a key Parley does not know.
const forger = new TestIdp(OKTA, "forger");
// Okta again, encrypting its assertions to Parley's SP certificate.
const encrypting = new TestIdp(OKTA, "idp", { encryptAssertions: true });
const idps = [okta, second, forger, encrypting];

const settings = () =>
  authSettingsSchema.parse({
    saml: {
      sp_private_key_file: fixture("sp-key.pem"),
      sp_certificate_file: fixture("sp-cert.pem"),
      idps: [
        {
          name: "okta",
          display_name: "Okta",
          entity_id: OKTA,
          url: okta.ssoUrl,
          x509cert_files: [fixture("idp-cert.pem")],
          attr_email: "email",
          attr_first_name: "first_name",
          attr_last_name: "last_name",
        },
        { name: "second", entity_id: SECOND, url: second.ssoUrl, x509cert_files: [fixture("idp-cert.pem")], attr_full_name: "display_name" },
      ],
    },
  });

// The IdPs listen before the server starts: its settings name their URLs.
const config: Partial<Config> = {};
beforeAll(async () => {
  for (const idp of idps) await idp.start();
  config.auth = settings();
});
const t = useTestServer(config);
beforeAll(async () => {
  const metadata = await (await fetch(`${t.baseUrl}/saml/metadata.xml`)).text();
  for (const idp of idps) idp.sp = samlify.ServiceProvider({ metadata });
});
afterAll(async () => {
  for (const idp of idps) await idp.stop();
});
afterEach(() => {
  for (const idp of idps) {
    idp.user = null;
    idp.tags = {};
    idp.responseSp = undefined;
    idp.edit = (template) => template;
  }
});

const HAMLET = { nameId: "okta|hamlet", email: "hamlet@zulip.com", firstName: "King", lastName: "Hamlet" };

/** GET the login URL: the redirect to the IdP's single sign-on URL. */
async function startLogin(path = "/accounts/login/social/saml/okta"): Promise<URL> {
  const res = await fetch(`${t.baseUrl}${path}`, { redirect: "manual" });
  expect(res.status, await res.clone().text()).toBe(302);
  return new URL(res.headers.get("location")!);
}

/** The browser at the IdP (`idp`, which may not be the one Parley sent it to): the form it answers with. */
async function atIdp(idp: TestIdp, location: URL): Promise<PostedForm> {
  const res = await fetch(`${idp.ssoUrl}${location.search}`);
  const html = await res.text();
  expect(res.status, html).toBe(200);
  return readForm(html);
}

/** The browser posting the IdP's form to Parley (at the test server's address). */
async function postForm(form: Pick<PostedForm, "SAMLResponse" | "RelayState">): Promise<Response> {
  expect.soft((form as PostedForm).action ?? ACS_URL).toBe(ACS_URL);
  return fetch(`${t.baseUrl}/complete/saml/`, {
    method: "POST",
    redirect: "manual",
    body: new URLSearchParams({ SAMLResponse: form.SAMLResponse, RelayState: form.RelayState }),
  });
}

/** The whole round: login URL → IdP → /complete/saml/. */
async function signIn(idp: TestIdp = okta, path?: string): Promise<Response> {
  return postForm(await atIdp(idp, await startLogin(path)));
}

/** The email of the account the response's session cookie signs in, or null. */
async function sessionEmail(res: Response): Promise<string | null> {
  const cookies = res.headers
    .getSetCookie()
    .map((line) => line.split(";")[0]!)
    .join("; ");
  if (!cookies.includes("sessionid=")) return null;
  const me = await fetch(`${t.baseUrl}/json/users/me`, { headers: { Cookie: cookies } });
  return me.status === 200 ? ((await me.json()) as { email: string }).email : null;
}

const countSessions = async () =>
  Number(
    (
      await t.ctx.db.kysely
        .selectFrom("sessions")
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** Refused: the status, a page that says so, no session cookie, no session row. */
async function expectRefused(res: Response, status: number, before: number, words = "SAML sign-in failed"): Promise<void> {
  const html = await res.clone().text();
  expect(res.status, html).toBe(status);
  expect(html).toContain(words);
  expect(res.headers.getSetCookie().filter((c) => c.startsWith("sessionid="))).toEqual([]);
  expect(await countSessions()).toBe(before);
}

const decode = (form: PostedForm) => Buffer.from(form.SAMLResponse, "base64").toString("utf8");
const encode = (form: PostedForm, xml: string): PostedForm => ({ ...form, SAMLResponse: Buffer.from(xml, "utf8").toString("base64") });

describe("SAML: configuration", () => {
  it("offers one entry per IdP, named and labelled as Zulip's SAMLAuthBackend does", () => {
    expect(samlBackend.entries(t.ctx.config.auth)).toEqual([
      { name: "saml:okta", display_name: "Okta", display_icon: null, path: "saml/okta" },
      { name: "saml:second", display_name: "SAML", display_icon: null, path: "saml/second" },
    ]);
    expect(samlBackend.entries(authSettingsSchema.parse({}))).toEqual([]);
  });

  it("serves signed SP metadata at /saml/metadata.xml", async () => {
    const res = await fetch(`${t.baseUrl}/saml/metadata.xml`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/xml/);
    const xml = await res.text();
    expect(xml).toContain(`entityID="${SP_ENTITY_ID}"`);
    expect(xml).toMatch(new RegExp(`<AssertionConsumerService [^>]*Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"[^>]*Location="${ACS_URL}"`));
    expect(xml).toMatch(/WantAssertionsSigned="true"/);
    expect(xml).toMatch(/AuthnRequestsSigned="true"/);
    expect(xml).toMatch(/<(ds:)?SignatureValue>[A-Za-z0-9+/=\s]{100,}<\/(ds:)?SignatureValue>/);
    const spCert = fs.readFileSync(fixture("sp-cert.pem"), "utf8").replace(/-----[^-]+-----|\s/g, "");
    expect(xml.replace(/\s/g, "")).toContain(spCert);
  });

  it("answers an unknown IdP with a page, not a redirect", async () => {
    const res = await fetch(`${t.baseUrl}/accounts/login/social/saml/nobody`, { redirect: "manual" });
    expect(res.status).toBe(404);
  });

  it("sends a signed AuthnRequest to the IdP by the Redirect binding, with an opaque RelayState", async () => {
    const location = await startLogin();
    expect(`${location.origin}${location.pathname}`).toBe(okta.ssoUrl);
    expect(location.searchParams.get("SAMLRequest")).toBeTruthy();
    expect(location.searchParams.get("Signature")).toBeTruthy();
    expect(location.searchParams.get("SigAlg")).toBe("http://www.w3.org/2001/04/xmldsig-more#rsa-sha256");
    expect(location.searchParams.get("RelayState")).toMatch(/^[A-Za-z0-9_-]{32}$/);
    // The IdP verifies the request's signature with the certificate of the SP's metadata.
    okta.user = HAMLET;
    const requestsBefore = okta.requests.length;
    await atIdp(okta, location);
    expect(okta.requests.length).toBe(requestsBefore + 1);
    const tampered = new URL(location);
    tampered.searchParams.set("RelayState", "another-relay-state");
    expect((await fetch(`${okta.ssoUrl}${tampered.search}`)).status).toBe(500);
  });
});

describe("SAML: signing in", () => {
  it("signs the person in with the email of the signed assertion, and goes to `next`", async () => {
    okta.user = HAMLET;
    const res = await signIn(okta, "/accounts/login/social/saml/okta?next=/%23narrow/channel/3-Denmark");
    expect(res.status, await res.clone().text()).toBe(302);
    expect(res.headers.get("location")).toBe("/#narrow/channel/3-Denmark");
    expect(await sessionEmail(res)).toBe("hamlet@zulip.com");
  });

  it("reads an assertion encrypted to the SP's certificate", async () => {
    encrypting.user = HAMLET;
    const form = await atIdp(encrypting, await startLogin());
    expect(decode(form)).toContain("EncryptedAssertion");
    expect(decode(form)).not.toContain("hamlet@zulip.com");
    const res = await postForm(form);
    expect(res.status, await res.clone().text()).toBe(302);
    expect(await sessionEmail(res)).toBe("hamlet@zulip.com");
  });

  it("takes the email from the NameID when the IdP's settings name no email attribute", async () => {
    second.user = { nameId: "othello@zulip.com", fullName: "Othello, the Moor of Venice" };
    const res = await signIn(second, "/accounts/login/social/saml/second");
    expect(res.status, await res.clone().text()).toBe(302);
    expect(await sessionEmail(res)).toBe("othello@zulip.com");
  });

  it("refuses an assertion that names no email address", async () => {
    second.user = { nameId: "othello" };
    const before = await countSessions();
    await expectRefused(await signIn(second, "/accounts/login/social/saml/second"), 403, before);
  });
});

describe("SAML: refused answers", () => {
  it("refuses an assertion without a signature, even in a signed Response", async () => {
    okta.user = HAMLET;
    okta.responseSp = samlify.ServiceProvider({
      entityID: SP_ENTITY_ID,
      assertionConsumerService: [{ Binding: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST", Location: ACS_URL }],
      wantAssertionsSigned: false,
      wantMessageSigned: true,
    });
    const form = await atIdp(okta, await startLogin());
    expect(decode(form)).toMatch(/<\/saml:Issuer><ds:Signature/);
    expect(decode(form)).not.toMatch(/<saml:Assertion [^>]*>.*<ds:Signature/);
    const before = await countSessions();
    await expectRefused(await postForm(form), 403, before);
  });

  it("refuses a Response with no signature at all", async () => {
    okta.user = HAMLET;
    const form = await atIdp(okta, await startLogin());
    const unsigned = decode(form).replace(/<ds:Signature\b.*?<\/ds:Signature>/gs, "");
    expect(unsigned).not.toContain("Signature");
    const before = await countSessions();
    await expectRefused(await postForm(encode(form, unsigned)), 403, before);
  });

  it("refuses an assertion signed with a key that is not the IdP's (forged)", async () => {
    forger.user = HAMLET;
    const before = await countSessions();
    await expectRefused(await signIn(forger), 403, before);
  });

  it("refuses an assertion whose attribute was changed after signing", async () => {
    okta.user = HAMLET;
    const form = await atIdp(okta, await startLogin());
    const xml = decode(form);
    expect(xml).toContain(">hamlet@zulip.com</saml:AttributeValue>");
    const before = await countSessions();
    await expectRefused(await postForm(encode(form, xml.replace(">hamlet@zulip.com<", ">iago@zulip.com<"))), 403, before);
  });

  it("refuses the same Response a second time (replay)", async () => {
    okta.user = HAMLET;
    const form = await atIdp(okta, await startLogin());
    const first = await postForm(form);
    expect(await sessionEmail(first)).toBe("hamlet@zulip.com");
    const before = await countSessions();
    await expectRefused(await postForm(form), 400, before);
  });

  it("refuses an assertion ID it accepted before, even answering a new request", async () => {
    okta.user = HAMLET;
    okta.tags = { AssertionID: "_the-one-assertion" };
    expect(await sessionEmail(await signIn())).toBe("hamlet@zulip.com");
    const before = await countSessions();
    await expectRefused(await signIn(), 403, before);
  });

  it("refuses an assertion for another audience", async () => {
    okta.user = HAMLET;
    okta.tags = { Audience: "https://elsewhere.example.test/sp" };
    const before = await countSessions();
    await expectRefused(await signIn(), 403, before);
  });

  it("refuses an expired assertion (NotOnOrAfter in the past)", async () => {
    okta.user = HAMLET;
    const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
    okta.tags = { ConditionsNotBefore: ago(20), ConditionsNotOnOrAfter: ago(10), SubjectConfirmationDataNotOnOrAfter: ago(10) };
    const before = await countSessions();
    await expectRefused(await signIn(), 403, before);
  });

  it("refuses an assertion not yet valid (NotBefore in the future)", async () => {
    okta.user = HAMLET;
    okta.tags = { ConditionsNotBefore: new Date(Date.now() + 10 * 60_000).toISOString() };
    const before = await countSessions();
    await expectRefused(await signIn(), 403, before);
  });

  it("refuses an assertion issued by another configured IdP than the one the sign-in went to", async () => {
    second.user = HAMLET;
    const form = await atIdp(second, await startLogin("/accounts/login/social/saml/okta"));
    const before = await countSessions();
    await expectRefused(await postForm(form), 403, before);
  });

  it("refuses an assertion addressed to another service's URL (Recipient)", async () => {
    okta.user = HAMLET;
    okta.tags = { SubjectRecipient: "https://elsewhere.example.test/complete/saml/" };
    const before = await countSessions();
    await expectRefused(await signIn(), 403, before);
  });

  it("refuses an assertion that does not name the request it answers (SubjectConfirmationData InResponseTo)", async () => {
    okta.user = HAMLET;
    okta.edit = (template) => template.replace('Recipient="{SubjectRecipient}" InResponseTo="{InResponseTo}"', 'Recipient="{SubjectRecipient}"');
    const before = await countSessions();
    await expectRefused(await signIn(), 403, before);
  });

  it("refuses a Response to another sign-in's request", async () => {
    okta.user = HAMLET;
    const mine = await startLogin();
    const other = await atIdp(okta, await startLogin());
    const before = await countSessions();
    await expectRefused(await postForm({ ...other, RelayState: mine.searchParams.get("RelayState")! }), 403, before);
  });

  it("says so when the IdP answers that it did not sign the person in", async () => {
    okta.user = HAMLET;
    // A failure Response: a status, no assertion, the Response signed.
    okta.responseSp = samlify.ServiceProvider({
      entityID: SP_ENTITY_ID,
      assertionConsumerService: [{ Binding: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST", Location: ACS_URL }],
      wantAssertionsSigned: false,
      wantMessageSigned: true,
    });
    okta.tags = { StatusCode: "urn:oasis:names:tc:SAML:2.0:status:Responder" };
    okta.edit = (template) => template.replace(/<saml:Assertion .*<\/saml:Assertion>/s, "");
    const form = await atIdp(okta, await startLogin());
    expect(decode(form)).not.toContain("Assertion");
    const before = await countSessions();
    await expectRefused(await postForm(form), 403, before, "The identity provider did not sign you in.");
  });

  it("refuses a Response that is not XML with a page, not a 500", async () => {
    const relayState = (await startLogin()).searchParams.get("RelayState")!;
    const before = await countSessions();
    await expectRefused(await postForm({ SAMLResponse: Buffer.from("<not xml").toString("base64"), RelayState: relayState }), 403, before);
  });

  it("refuses an unknown RelayState, and a post without a Response", async () => {
    okta.user = HAMLET;
    const form = await atIdp(okta, await startLogin());
    const before = await countSessions();
    await expectRefused(await postForm({ ...form, RelayState: "made-up" }), 400, before);
    await expectRefused(await postForm({ ...form, RelayState: "" }), 400, before);
    const empty = await fetch(`${t.baseUrl}/complete/saml/`, {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ RelayState: form.RelayState }),
    });
    await expectRefused(empty, 400, before);
  });

  it("refuses a deactivated user", async () => {
    const cordelia = await t.user("cordelia");
    expectSuccess(await t.request("DELETE", "iago", `/api/v1/users/${cordelia.id}`));
    try {
      okta.user = { nameId: "okta|cordelia", email: cordelia.delivery_email, firstName: "Cordelia", lastName: "Lear" };
      const before = await countSessions();
      await expectRefused(await signIn(), 403, before, "deactivated");
    } finally {
      expectSuccess(await t.request("POST", "iago", `/api/v1/users/${cordelia.id}/reactivate`));
    }
  });
});
