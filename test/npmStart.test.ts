import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { createTransport } from "nodemailer";
import { apiCaller, firstStartCredentials, freePort, startServerProcess } from "./support/process.js";
import { freshDatabase } from "./support/testDb.js";
import { postLoginForm } from "./support/webLogin.js";
import { basicAuth } from "./support/auth.js";

/**
 * `npm start` runs scripts/start.mjs, which runs dist/cli.js: src/ bundled with its packages by
 * scripts/build.mjs (the other tests run that bundle directly, or src/ in-process). This drives the
 * bundle through what it must not lose:
 * routes and plugins (form, multipart, cookies), the database driver, and the packages loaded
 * on first use (markdown-it, KaTeX, highlight.js, sharp, @tus/server, nodemailer, the email
 * gateway's smtp-server and mailparser, and the sign-in packages: @node-saml/node-saml,
 * openid-client, ldapts, otpauth, qrcode, bowser).
 */
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const fn of cleanups) await fn();
});

async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("npm start (the precompiled bundle)", () => {
  it("serves the API, renders, stores uploads and thumbnails, takes tus uploads and writes emails", async () => {
    const db = await freshDatabase();
    cleanups.push(db.drop);
    const gatewayPort = await freePort();
    const gatewayEnv = { PARLEY_EMAIL_GATEWAY_PORT: String(gatewayPort), PARLEY_EMAIL_GATEWAY_DOMAIN: "mail.parley.example" };
    const server = await startServerProcess({ ...db.env, ...gatewayEnv }, ["scripts/start.mjs", "serve"]);
    cleanups.push(async () => {
      await server.stop("SIGKILL");
    });
    const base = server.baseUrl;

    const credentials = await firstStartCredentials(server);
    const auth = { Authorization: basicAuth(credentials.email, credentials.apiKey) };
    const api = apiCaller(() => base, credentials);
    const me = await api("GET", "/users/me");
    expect(me.body).toMatchObject({ result: "success", email: credentials.email });

    // Markdown with code and math: markdown-it, highlight.js and KaTeX, loaded on first use.
    const sent = await api("POST", "/messages", {
      type: "direct",
      to: JSON.stringify([me.body.user_id]),
      content: "**bold** $$x^2$$\n```python\nprint('hi')\n```",
    });
    expect(sent.body.result).toBe("success");
    const message = await api("GET", `/messages/${sent.body.id}`);
    expect(message.body.message.content).toContain("<strong>bold</strong>");
    expect(message.body.message.content).toContain('<span class="katex">');
    expect(message.body.message.content).toContain('<div class="codehilite" data-code-language="Python">');
    expect(message.body.message.content).toContain('<span class="nb">print</span>');

    // A multipart upload, served back, and its thumbnail made by sharp in a background job.
    const png = await sharp({ create: { width: 1200, height: 900, channels: 3, background: "#3366cc" } })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append("file", new Blob([png], { type: "image/png" }), "photo.png");
    const uploaded = await (await fetch(`${base}/api/v1/user_uploads`, { method: "POST", headers: auth, body: form })).json();
    expect(uploaded.result).toBe("success");
    const served = await fetch(base + uploaded.url, { headers: auth });
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
    const thumbnailUrl = `${base}${uploaded.url.replace("/user_uploads/", "/user_uploads/thumbnail/")}/840x560.webp`;
    const thumbnail = await until("the thumbnail", async () => {
      const res = await fetch(thumbnailUrl, { headers: auth });
      return res.status === 200 ? res : undefined;
    });
    expect(thumbnail.headers.get("content-type")).toBe("image/webp");

    // A tus upload in one PATCH.
    const data = Buffer.from("resumable bytes");
    const created = await fetch(`${base}/api/v1/tus`, {
      method: "POST",
      headers: {
        ...auth,
        "Tus-Resumable": "1.0.0",
        "Upload-Length": String(data.length),
        "Upload-Metadata": `filename ${Buffer.from("r.txt").toString("base64")}`,
      },
    });
    expect(created.status).toBe(201);
    const patched = await fetch(base + created.headers.get("location")!, {
      method: "PATCH",
      headers: { ...auth, "Tus-Resumable": "1.0.0", "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream" },
      body: data,
    });
    expect(patched.status).toBe(200);
    const finished = await patched.json();
    expect(await (await fetch(base + finished.url, { headers: auth })).text()).toBe("resumable bytes");

    // An email (the email change confirmation) composed by nodemailer into the outbox.
    expect((await api("PATCH", "/settings", { email: "new-owner@parley.example" })).body.result).toBe("success");
    const outbox = path.join(db.dataDir, "outbox");
    const eml = await until("the email in the outbox", async () =>
      fs.existsSync(outbox) ? fs.readdirSync(outbox).find((f) => f.endsWith(".eml")) : undefined,
    );
    expect(fs.readFileSync(path.join(outbox, eml), "utf8")).toContain("To: new-owner@parley.example");

    // A mail to a channel's address, through the email gateway's SMTP listener.
    const channel = "email gateway";
    expect((await api("POST", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: channel }]) })).body.result).toBe("success");
    const channelId = (await api("GET", "/get_stream_id", { stream: channel })).body.stream_id;
    const address = (await api("GET", `/streams/${channelId}/email_address`)).body.email;
    expect(address).toMatch(/^email-gateway\.[0-9a-f]{32}\.show-sender@mail\.parley\.example$/);
    const transport = createTransport({ host: "127.0.0.1", port: gatewayPort, secure: false, ignoreTLS: true });
    await transport.sendMail({ from: "someone@example.org", to: address, subject: "Mailed in", text: "Hello by email" });
    transport.close();
    const mailed = await api("GET", "/messages", {
      anchor: "newest",
      num_before: "1",
      num_after: "0",
      narrow: JSON.stringify([{ operator: "channel", operand: channel }]),
      apply_markdown: "false",
    });
    expect(mailed.body.messages[0]).toMatchObject({ subject: "Mailed in", content: "From: someone@example.org\nHello by email" });

    // The web app: the sign-in form, then the shell with the built script, served by the same process.
    // Not on a terminal: the generated password is in a file of the data directory, not the output.
    const password = fs.readFileSync(path.join(db.dataDir, "first-start-password"), "utf8").trim();
    const login = await postLoginForm(base, credentials.email, password);
    expect(login.status).toBe(302);
    const cookie = login.headers
      .getSetCookie()
      .map((line) => line.split(";")[0])
      .join("; ");
    const shell = await (await fetch(`${base}/`, { headers: { Cookie: cookie } })).text();
    const script = /<script type="module" async src="([^"]+)"><\/script>/.exec(shell)?.[1];
    expect(script).toMatch(/^\/static\/webapp\/main-[\w-]+\.js$/);
    const js = await fetch(base + script);
    expect(js.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect((await js.text()).length).toBeGreaterThan(1000);

    expect(await server.stop("SIGTERM")).toBe(0);
  }, 60_000);

  it("signs in through the packages it loads on first use: SAML, OAuth, LDAP, two-factor apps, the sessions list", async () => {
    const db = await freshDatabase();
    cleanups.push(db.drop);
    const saml = (name: string) => fileURLToPath(new URL(`./fixtures/saml/${name}`, import.meta.url));
    const authFile = path.join(db.dataDir, "auth.json");
    fs.writeFileSync(
      authFile,
      JSON.stringify({
        saml: {
          sp_private_key_file: saml("sp-key.pem"),
          sp_certificate_file: saml("sp-cert.pem"),
          idps: [{ name: "okta", entity_id: "https://idp.example.test/okta", url: "https://idp.example.test/sso", x509cert_files: [saml("idp-cert.pem")] }],
        },
        github: { client_id: "parley-test", client_secret: "not-a-secret" },
        ldap: { url: "ldap://127.0.0.1:1", user_dn_template: "uid=%(user)s,ou=people,dc=example,dc=test", timeout_seconds: 2 },
      }),
    );
    const server = await startServerProcess({ ...db.env, PARLEY_AUTH_FILE: authFile }, ["scripts/start.mjs", "serve"]);
    cleanups.push(async () => {
      await server.stop("SIGKILL");
    });
    const base = server.baseUrl;
    const credentials = await firstStartCredentials(server);

    // @node-saml/node-saml and its XML packages: the SP metadata, signed with the SP's key.
    const metadata = await fetch(`${base}/saml/metadata.xml`);
    expect(metadata.status).toBe(200);
    expect(await metadata.text()).toMatch(/<EntityDescriptor[\s\S]*<(ds:)?SignatureValue>/);

    // openid-client: the redirect to GitHub, with a PKCE challenge.
    const github = await fetch(`${base}/accounts/login/social/github`, { redirect: "manual" });
    expect(github.status).toBe(302);
    expect(github.headers.get("location")).toMatch(/^https:\/\/github\.com\/login\/oauth\/authorize\?.*code_challenge=/);

    // ldapts: a directory that does not answer is reported as such.
    const ldap = await fetch(`${base}/api/v1/fetch_api_key`, { method: "POST", body: new URLSearchParams({ username: "hamlet", password: "elsinore" }) });
    expect(await ldap.json()).toMatchObject({ msg: "The directory that checks passwords (LDAP) cannot be reached. Please try again later." });

    // otpauth and qrcode: the two-factor setup page's QR code.
    const password = fs.readFileSync(path.join(db.dataDir, "first-start-password"), "utf8").trim();
    const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
    const login = await postLoginForm(base, credentials.email, password, { headers: { "User-Agent": firefox } });
    expect(login.status).toBe(302);
    const cookie = login.headers
      .getSetCookie()
      .map((line) => line.split(";")[0])
      .join("; ");
    const setup = await fetch(`${base}/account/two_factor/setup/`, { headers: { Cookie: cookie } });
    expect(setup.status).toBe(200);
    expect(await setup.text()).toMatch(/<img class="qr" src="data:image\/svg\+xml;base64,/);

    // bowser: the sessions list names the browser the session signed in with.
    const sessions = await apiCaller(() => base, credentials)("GET", "/users/me/sessions");
    expect(sessions.body.sessions).toContainEqual(expect.objectContaining({ browser: "Firefox 128", os: "Linux" }));

    expect(await server.stop("SIGTERM")).toBe(0);
  }, 60_000);
});
