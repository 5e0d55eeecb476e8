import { afterAll, describe, expect, it, vi } from "vitest";

// "Forgot your password?" when the organization does not sign in with passwords (an identity
// provider or LDAP only): Zulip's reset form answers as always and sends nothing. The
// organization's switch (PATCH /realm authentication_methods) is another change of issue 36, so
// here "Email" is turned off where every caller asks (src/auth/methods.ts).
vi.mock("../src/auth/methods.js", async (original) => {
  const actual = await original<typeof import("../src/auth/methods.js")>();
  return { ...actual, methodEnabled: (...args: Parameters<typeof actual.methodEnabled>) => args[2] !== "Email" && actual.methodEnabled(...args) };
});

// A worker keeps modules from one test file to the next (vitest.config.ts: isolate false): the
// server is imported afresh here so that it sees the mock, and forgotten after, so that the next
// file's server does not.
vi.resetModules();
afterAll(() => {
  vi.doUnmock("../src/auth/methods.js");
  vi.resetModules();
});
const { useSmtpSink } = await import("./support/smtpSink.js");
const { useTestServer } = await import("./support/testApp.js");
const smtp = useSmtpSink();
const t = useTestServer(smtp.overrides);

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
