import { describe, expect, it } from "vitest";
import { authSettingsSchema } from "../../src/auth/settings.js";
import { useTestServer } from "../support/testApp.js";
import { fixture } from "./samlIdp.js";

/** SAML's URLs on a server that does not offer it, and on one whose settings name a missing file. */

describe("SAML not configured", () => {
  const t = useTestServer();

  it("answers its URLs with 404 pages", async () => {
    for (const [method, path] of [
      ["GET", "/saml/metadata.xml"],
      ["POST", "/complete/saml/"],
      ["GET", "/accounts/login/social/saml/okta"],
    ] as const) {
      const res = await fetch(`${t.baseUrl}${path}`, {
        method,
        redirect: "manual",
        body: method === "POST" ? new URLSearchParams({ SAMLResponse: "x" }) : undefined,
      });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    }
  });
});

describe("SAML with a certificate file that cannot be read", () => {
  const t = useTestServer({
    auth: authSettingsSchema.parse({
      saml: {
        idps: [
          { name: "okta", entity_id: "https://idp.example.test/okta", url: "https://idp.example.test/sso", x509cert_files: [fixture("missing-cert.pem")] },
        ],
      },
    }),
  });

  it("says the sign-in is unavailable (503), without sending anyone to the IdP", async () => {
    for (const path of ["/accounts/login/social/saml/okta", "/saml/metadata.xml"]) {
      const res = await fetch(`${t.baseUrl}${path}`, { redirect: "manual" });
      expect(res.status, path).toBe(503);
      expect(await res.text()).toContain("SAML sign-in unavailable");
    }
    const flows = await t.ctx.db.kysely.selectFrom("auth_flows").selectAll().execute();
    expect(flows).toEqual([]);
  });
});
