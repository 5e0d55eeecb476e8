import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authSettingsSchema } from "../../src/auth/settings.js";
import { PARLEY_CLI, REPO_ROOT } from "../support/process.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";
import { ADMIN_DN, ADMIN_PASSWORD, type LdapTestServer, PEOPLE_DN, slapdMissing, startLdapServer } from "./ldapServer.js";

/**
 * `parley ldap-sync`, run as a child process on the test server's database against a real slapd
 * (test/auth/ldapServer.ts): names and addresses copied, accounts the directory lacks deactivated
 * with deactivate_missing, --dry-run changing nothing, and no sync that deactivates every owner.
 */
describe.skipIf(slapdMissing)("parley ldap-sync", () => {
  const t = useTestServer();
  let ldap: LdapTestServer;
  let scratch: string;

  function settings(deactivateMissing: boolean, url = ldap.url) {
    return {
      ldap: {
        url,
        user_search: { base: PEOPLE_DN, filter: "(uid=%(user)s)" },
        bind_dn: ADMIN_DN,
        bind_password: ADMIN_PASSWORD,
        deactivate_missing: deactivateMissing,
        timeout_seconds: 5,
      },
    };
  }

  function sync(options: { deactivateMissing: boolean; dryRun?: boolean; url?: string }) {
    const file = path.join(scratch, "auth.json");
    fs.writeFileSync(file, JSON.stringify(settings(options.deactivateMissing, options.url)));
    const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("PARLEY_")));
    const args = [...PARLEY_CLI, "ldap-sync", ...(options.dryRun ? ["--dry-run"] : [])];
    return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        args,
        { cwd: REPO_ROOT, env: { ...base, ...t.processEnv, PARLEY_AUTH_FILE: file, PARLEY_LOG_LEVEL: "warn", PARLEY_INSECURE_FAST_HASHING: "1" } },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      ),
    );
  }

  const active = async (name: string) => (await t.user(name)).is_active;

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "parley-ldap-sync-"));
    ldap = await startLdapServer();
    await ldap.add({ uid: "hamlet", cn: "Hamlet, Prince of Denmark", mail: "hamlet@zulip.com", password: "elsinore" });
    await ldap.add({ uid: "cordelia", cn: "Cordelia", mail: "cordelia@zulip.com", password: "lear-daughter" });
    await ldap.add({ uid: "iago", cn: "Iago", mail: "iago@zulip.com", password: "honest-iago" });
  });
  afterAll(async () => {
    await ldap?.stop();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  it("refuses a sync that would deactivate every owner, and changes nothing", async () => {
    const res = await sync({ deactivateMissing: true });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("LDAP sync would have deactivated all organization owners; nothing was changed.");
    expect(await active("othello")).toBe(1);
    expect((await t.user("hamlet")).full_name).toBe("King Hamlet");
  }, 60_000);

  it("prints what it would do with --dry-run, and does nothing", async () => {
    await ldap.add({ uid: "desdemona", cn: "Desdemona", mail: "desdemona@zulip.com", password: "willow" });
    // Cordelia signs in through LDAP once (her account is linked to her entry), then her address changes there.
    t.ctx.config.auth = authSettingsSchema.parse(settings(false));
    expectSuccess(await t.post(null, "/api/v1/fetch_api_key", { username: "cordelia", password: "lear-daughter" }));
    await ldap.modify("cordelia", { mail: "cordelia.lear@zulip.com" });
    const res = await sync({ deactivateMissing: true, dryRun: true });
    expect(res).toMatchObject({ code: 0, stderr: "" });
    expect(res.stdout).toContain('updated hamlet@zulip.com: full name "King Hamlet" -> "Hamlet, Prince of Denmark"');
    expect(res.stdout).toContain("updated cordelia@zulip.com: email cordelia@zulip.com -> cordelia.lear@zulip.com");
    expect(res.stdout).toContain("deactivated othello@zulip.com: not in the directory");
    expect(res.stdout).toMatch(/^Dry run: nothing was changed\. Checked \d+ accounts/m);
    expect((await t.user("hamlet")).full_name).toBe("King Hamlet");
    expect((await t.user("cordelia")).delivery_email).toBe("cordelia@zulip.com");
    expect(await active("othello")).toBe(1);
  }, 60_000);

  it("copies names and addresses, and keeps missing accounts with deactivate_missing off", async () => {
    const res = await sync({ deactivateMissing: false });
    expect(res).toMatchObject({ code: 0, stderr: "" });
    expect(res.stdout).toContain("not in the directory: othello@zulip.com (kept: deactivate_missing is off)");
    expect(res.stdout).toMatch(/Checked \d+ accounts of "[^"]+": 2 were updated, 0 were deactivated, \d+ not in the directory and kept\./);
    expect((await t.user("hamlet")).full_name).toBe("Hamlet, Prince of Denmark");
    const cordelia = await t.user("cordelia.lear@zulip.com");
    expect(cordelia.delivery_email).toBe("cordelia.lear@zulip.com");
    expect(await active("othello")).toBe(1);
  }, 60_000);

  it("deactivates the accounts the directory lacks with deactivate_missing on", async () => {
    const res = await sync({ deactivateMissing: true });
    expect(res).toMatchObject({ code: 0, stderr: "" });
    expect(res.stdout).toContain("deactivated othello@zulip.com: not in the directory");
    expect(res.stdout).not.toContain("hamlet@zulip.com");
    expect(await active("othello")).toBe(0);
    expect(await active("polonius")).toBe(0);
    for (const name of ["hamlet", "cordelia.lear@zulip.com", "iago", "desdemona"]) expect(await active(name)).toBe(1);
  }, 60_000);

  it("says that the directory cannot be reached, and changes nothing", async () => {
    await t.ctx.db.kysely.updateTable("users").set({ is_active: 1 }).where("email", "=", "othello@zulip.com").execute();
    const res = await sync({ deactivateMissing: true, url: "ldap://127.0.0.1:1" });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("parley: LDAP directory ldap://127.0.0.1:1:");
    expect(await active("othello")).toBe(1);
  }, 60_000);
});
