import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authSettingsSchema } from "../../src/auth/settings.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { type LdapTestServer, PEOPLE_DN, slapdMissing, startLdapServer } from "./ldapServer.js";

/**
 * LDAP sign-in over TLS: slapd with a certificate for 127.0.0.1 signed by a CA made at test time
 * (openssl), reached by ldaps:// and by StartTLS on ldap://, trusting that CA through ca_file; a
 * certificate the server does not trust is refused as an unreachable directory, not skipped over.
 */
describe.skipIf(slapdMissing)("LDAP sign-in over TLS", () => {
  const t = useTestServer();
  let ldap: LdapTestServer;

  function configure(overrides: Record<string, unknown>) {
    t.ctx.config.auth = authSettingsSchema.parse({ ldap: { user_dn_template: `uid=%(user)s,${PEOPLE_DN}`, timeout_seconds: 3, ...overrides } });
  }
  const fetchApiKey = () => t.post(null, "/api/v1/fetch_api_key", { username: "hamlet", password: "elsinore" });

  beforeAll(async () => {
    ldap = await startLdapServer({ tls: true });
    await ldap.add({ uid: "hamlet", cn: "King Hamlet", mail: "hamlet@zulip.com", password: "elsinore" });
  }, 60_000);
  afterAll(() => ldap?.stop());

  it("signs in over ldaps:// with the CA of ca_file", async () => {
    configure({ url: ldap.ldapsUrl, ca_file: ldap.caFile });
    expect(expectSuccess(await fetchApiKey()).email).toBe("hamlet@zulip.com");
  });

  it("signs in over StartTLS with the CA of ca_file", async () => {
    configure({ url: ldap.url, start_tls: true, ca_file: ldap.caFile });
    expect(expectSuccess(await fetchApiKey()).email).toBe("hamlet@zulip.com");
  });

  it("refuses a certificate signed by a CA it was not given", async () => {
    const unreachable = "The directory that checks passwords (LDAP) cannot be reached. Please try again later.";
    configure({ url: ldap.ldapsUrl });
    expectError(await fetchApiKey(), 401, unreachable, "AUTHENTICATION_FAILED");
    configure({ url: ldap.url, start_tls: true });
    expectError(await fetchApiKey(), 401, unreachable, "AUTHENTICATION_FAILED");
  });
});
