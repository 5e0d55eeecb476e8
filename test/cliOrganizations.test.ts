import { describe, expect, it } from "vitest";
import { realmStore } from "../src/store/realms.js";
import { runParley } from "./support/process.js";
import { expectError, expectSuccess, useTestServer } from "./support/testApp.js";

// `parley deactivate-organization`, `reactivate-organization` and `set-organization-limits`, run
// as real processes on the test server's database. Each request below is the first of its user
// (a credential no server cache holds yet: without a bus, another process's change reaches this
// server's authentication cache only when the entry expires).
const t = useTestServer();

const parley = (...args: string[]) => runParley(args, { ...t.processEnv, PARLEY_INSECURE_FAST_HASHING: "1", PARLEY_LOG_LEVEL: "warn" });

async function zulipRealm() {
  return (await realmStore.getByStringId(t.ctx.db.kysely, "zulip"))!;
}

describe("parley set-organization-limits", () => {
  it("shows and sets the limits with the current usage, and the user limit binds the CLI too", async () => {
    const shown = await parley("set-organization-limits", "--realm", "zulip");
    expect(shown).toMatchObject({ code: 0, stderr: "" });
    expect(shown.stdout).toMatch(/max users: +unlimited \(now \d+ active\)/);
    expect(shown.stdout).toMatch(/upload quota: +unlimited \(now \d+\.\d\d MiB used\)/);
    const active = Number(/now (\d+) active/.exec(shown.stdout)![1]);

    const set = await parley("set-organization-limits", "--realm", "zulip", "--max-users", String(active), "--upload-quota-mib", "25");
    expect(set.code).toBe(0);
    expect(set.stdout).toContain(`max users:     ${active} (now ${active} active)`);
    expect(set.stdout).toMatch(/upload quota: +25 MiB/);
    expect(await zulipRealm()).toMatchObject({ max_users: active, upload_quota_mib: 25 });

    const refused = await parley("create-user", "--realm", "zulip", "--email", "sebastian@zulip.com", "--full-name", "Sebastian");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`parley: New members cannot join this organization because it has reached its limit of ${active} users.`);
    expectError(
      await t.post("iago", "/api/v1/users", { email: "antonio@zulip.com", password: "a-good-password", full_name: "Antonio" }),
      400,
      expect.stringContaining("reached its limit") as any,
    );

    // Only what is named changes; "none" lifts a limit.
    const lifted = await parley("set-organization-limits", "--realm", "zulip", "--max-users", "none");
    expect(lifted.code).toBe(0);
    expect(await zulipRealm()).toMatchObject({ max_users: null, upload_quota_mib: 25 });
    expect((await parley("create-user", "--realm", "zulip", "--email", "sebastian@zulip.com", "--full-name", "Sebastian")).code).toBe(0);
    expect((await parley("set-organization-limits", "--realm", "zulip", "--upload-quota-mib", "none")).code).toBe(0);
    expect(await zulipRealm()).toMatchObject({ max_users: null, upload_quota_mib: null });
  }, 120_000);

  it("refuses bad values and the system bots' organization", async () => {
    const bad = await parley("set-organization-limits", "--realm", "zulip", "--max-users", "0");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid --max-users "0"');
    expect((await parley("set-organization-limits", "--realm", "zulip", "--upload-quota-mib", "lots")).code).toBe(2);
    const internal = await parley("set-organization-limits", "--realm", "zulipinternal", "--max-users", "3");
    expect(internal.code).toBe(1);
    expect(internal.stderr).toContain("system bots' organization");
    expect((await parley("set-organization-limits", "--realm", "nowhere")).stderr).toContain('no organization with string id "nowhere"');
  }, 60_000);
});

describe("parley deactivate-organization / reactivate-organization", () => {
  it("cuts the organization off and brings it back", async () => {
    expect((await parley("deactivate-organization", "--realm", "zulipinternal")).code).toBe(1);
    const off = await parley("deactivate-organization", "--realm", "zulip", "--reason", "unpaid");
    expect(off).toMatchObject({ code: 0, stderr: "" });
    expect(off.stdout).toContain('Deactivated the organization "');
    expect((await zulipRealm()).deactivated).toBe(1);
    expectError(await t.get("aaron", "/api/v1/users/me"), 401, "This organization has been deactivated", "UNAUTHORIZED");
    expect((await parley("deactivate-organization", "--realm", "zulip")).stdout).toContain("was already deactivated");

    const on = await parley("reactivate-organization", "--realm", "zulip");
    expect(on.code).toBe(0);
    expect(on.stdout).toContain('Reactivated the organization "');
    expect((await zulipRealm()).deactivated).toBe(0);
    expectSuccess(await t.get("cordelia", "/api/v1/users/me"));
    expect((await parley("reactivate-organization", "--realm", "zulip")).stdout).toContain("is not deactivated");
  }, 120_000);
});
