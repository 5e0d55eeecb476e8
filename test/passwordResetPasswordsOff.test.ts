import { beforeAll, describe, expect, it } from "vitest";
import { authSettingsSchema } from "../src/auth/settings.js";
import { useSmtpSink } from "./support/smtpSink.js";
import { expectSuccess, useTestServer } from "./support/testApp.js";

// "Forgot your password?" when the organization does not sign in with passwords (an identity
// provider only): Zulip's reset form answers as always and sends nothing. The owner turns
// "Email" off through PATCH /realm, which needs another method on: an OpenID Connect provider
// (never contacted here).
const smtp = useSmtpSink();
// The sink fills its overrides in when it starts (smtpSink.ts): the same object goes to the server.
smtp.overrides.auth = authSettingsSchema.parse({ oidc: [{ name: "corp", issuer: "https://sso.example.com", client_id: "parley", client_secret: "s" }] });
const t = useTestServer(smtp.overrides);

beforeAll(async () => {
  expectSuccess(await t.patch("desdemona", "/api/v1/realm", { authentication_methods: { Email: false, "OpenID Connect": true } }));
});

/** Loads the reset page and posts its form for `email`, as a browser does. */
async function requestReset(email: string): Promise<Response> {
  const page = await fetch(`${t.baseUrl}/accounts/password/reset/`);
  const token = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
  const cookie = page.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
  return fetch(`${t.baseUrl}/accounts/password/reset/`, {
    method: "POST",
    redirect: "manual",
    headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email, csrfmiddlewaretoken: token }).toString(),
  });
}

describe("password reset with passwords turned off", () => {
  it("answers as usual and sends no email, to an account or to an unknown address", async () => {
    for (const email of ["hamlet@zulip.com", "nobody@example.com"]) {
      const res = await requestReset(email);
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe("/accounts/password/reset/done/");
    }
    await t.drainJobs();
    const queued = await t.ctx.db.kysely.selectFrom("jobs").select("payload").where("kind", "=", "email").execute();
    expect(queued.filter((job) => JSON.parse(job.payload).template === "password_reset")).toEqual([]);
    expect(smtp.sink().messages).toEqual([]);
    const links = await t.ctx.db.kysely.selectFrom("confirmations").select("id").where("kind", "=", "password_reset").execute();
    expect(links).toEqual([]);
  });
});
