import { readdirSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { doSetRealmLimits, type RealmLimits } from "../../src/actions/realmLimits.js";
import { transaction } from "../../src/appContext.js";
import { realmStore } from "../../src/store/realms.js";
import { PageBrowser } from "../support/pageBrowser.js";
import { registerQueue } from "../support/factories.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

// Limits an operator puts on an organization (parley set-organization-limits): active human
// users, and the total size of uploaded files. Null is unlimited.
const t = useTestServer();

async function realm() {
  const hamlet = await t.user("hamlet");
  return (await realmStore.getById(t.ctx.db.kysely, hamlet.realm_id))!;
}

async function setLimits(changes: Partial<RealmLimits>): Promise<RealmLimits> {
  const r = await realm();
  return transaction(t.ctx, (tx) => doSetRealmLimits(tx, r, changes, null));
}

async function activeHumans(): Promise<number> {
  const r = await realm();
  const rows = await t.ctx.db.kysely.selectFrom("users").select("id").where("realm_id", "=", r.id).where("is_active", "=", 1).where("is_bot", "=", 0).execute();
  return rows.length;
}

async function userExists(email: string): Promise<boolean> {
  return (await t.ctx.db.kysely.selectFrom("users").select("id").where("delivery_email", "=", email).executeTakeFirst()) !== undefined;
}

afterEach(async () => {
  await setLimits({ max_users: null, upload_quota_mib: null });
});

const FULL = (max: number) => `New members cannot join this organization because it has reached its limit of ${max} users.`;

describe("the user limit", () => {
  it("refuses POST /users, invitations, sign-up and reactivation beyond it; bots do not count", async () => {
    const active = await activeHumans();
    await setLimits({ max_users: active + 1 });

    // Invitations beyond the room left are refused as a whole; within it they are sent.
    expectError(
      await t.post("iago", "/api/v1/invites", { invitee_emails: "viola@example.com, olivia@example.com", stream_ids: "[]" }),
      400,
      `Your organization does not have enough room under its limit of ${active + 1} users to invite 2 users.`,
    );
    expect(await t.ctx.db.kysely.selectFrom("invitations").select("id").where("email", "in", ["viola@example.com", "olivia@example.com"]).execute()).toEqual(
      [],
    );
    expectSuccess(await t.post("iago", "/api/v1/invites", { invitee_emails: "viola@example.com", stream_ids: "[]" }));
    const invitation = await t.ctx.db.kysely
      .selectFrom("invitations")
      .select("confirmation_key")
      .where("email", "=", "viola@example.com")
      .executeTakeFirstOrThrow();

    // The last place goes to an account an administrator creates.
    expectSuccess(await t.post("iago", "/api/v1/users", { email: "feste@zulip.com", password: "a-good-password", full_name: "Feste" }));
    expectError(
      await t.post("iago", "/api/v1/users", { email: "malvolio@zulip.com", password: "a-good-password", full_name: "Malvolio" }),
      400,
      FULL(active + 1),
    );
    expect(await userExists("malvolio@zulip.com")).toBe(false);
    expectError(
      await t.post("iago", "/api/v1/invites", { invitee_emails: "orsino@example.com", stream_ids: "[]" }),
      400,
      expect.stringContaining("to invite 1 user.") as any,
    );

    // The invitation sent before the organization filled up: its sign-up is refused, nothing is created.
    const browser = new PageBrowser(t);
    const joinPath = `/join/${invitation.confirmation_key}/`;
    const page = await browser.get(joinPath);
    expect(page.status).toBe(200);
    const posted = await browser.post(joinPath, page.html, { full_name: "Viola", password: "shipwreck-12" });
    expect(posted.status).toBe(400);
    expect(posted.html).toContain("reached its limit");
    expect(await userExists("viola@example.com")).toBe(false);

    // Bots are not users of the plan.
    expectSuccess(await t.post("iago", "/api/v1/bots", { full_name: "Counter Bot", short_name: "counter" }));

    // A deactivated user comes back only when there is room.
    const othello = await t.user("othello");
    expectSuccess(await t.delete("iago", `/api/v1/users/${othello.id}`));
    expectSuccess(await t.post("iago", `/api/v1/users/${othello.id}/reactivate`));
    expectSuccess(await t.delete("iago", `/api/v1/users/${othello.id}`));
    await setLimits({ max_users: active });
    expectError(await t.post("iago", `/api/v1/users/${othello.id}/reactivate`), 400, FULL(active));
    await setLimits({ max_users: null });
    expectSuccess(await t.post("iago", `/api/v1/users/${othello.id}/reactivate`));

    // Unlimited again: the invitation works.
    const retry = await browser.get(joinPath);
    expect((await browser.post(joinPath, retry.html, { full_name: "Viola", password: "shipwreck-12" })).status).toBe(302);
  }, 60_000);
});

function storedFiles(): string[] {
  const root = path.join(t.config.dataDir, "uploads", "files");
  try {
    return readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.join(entry.parentPath, entry.name));
  } catch {
    return [];
  }
}

const b64 = (s: string) => Buffer.from(s).toString("base64");
const QUOTA = "Upload would exceed your organization's upload quota.";
const MIB = 1024 * 1024;

describe("the upload quota", () => {
  it("is reported by POST /register and announced when it changes", async () => {
    expect((await registerQueue(t, "hamlet", { fetch_event_types: JSON.stringify(["realm"]) })).realm_upload_quota_mib).toBeNull();
    const { events } = await t.captureEvents(() => setLimits({ upload_quota_mib: 5 }));
    expect(events.map((e) => e.event)).toEqual([{ type: "realm", op: "update_dict", property: "default", data: { upload_quota_mib: 5 } }]);
    expect(t.eventViolations).toEqual([]);
    expect((await registerQueue(t, "hamlet", { fetch_event_types: JSON.stringify(["realm"]) })).realm_upload_quota_mib).toBe(5);
  });

  it("refuses a multipart and a tus upload that would exceed it, and stores nothing", async () => {
    const r = await realm();
    const usedRow = await t.ctx.db.kysely
      .selectFrom("attachments")
      .select((eb) => eb.fn.sum<number | string | null>("size").as("total"))
      .where("realm_id", "=", r.id)
      .executeTakeFirst();
    const used = Number(usedRow?.total ?? 0);
    // Room for half a MiB more.
    const quotaMib = Math.ceil((used + MIB / 2) / MIB);
    await setLimits({ upload_quota_mib: quotaMib });
    const room = quotaMib * MIB - used;
    const before = storedFiles();
    const attachmentsBefore = (await t.ctx.db.kysely.selectFrom("attachments").select("id").execute()).length;

    const tooBig = Buffer.alloc(room + 1, 1);
    expectError(await t.upload("hamlet", "/api/v1/user_uploads", [{ data: tooBig, filename: "big.bin", type: "application/octet-stream" }]), 400, QUOTA);

    const created = await fetch(`${t.baseUrl}/api/v1/tus`, {
      method: "POST",
      headers: {
        "Tus-Resumable": "1.0.0",
        Authorization: await t.authHeader("hamlet"),
        "Upload-Length": String(room + 1),
        "Upload-Metadata": `filename ${b64("big.bin")}`,
      },
    });
    expect(created.status).toBe(413);
    expect(await created.json()).toEqual({ message: QUOTA });

    expect(storedFiles()).toEqual(before);
    expect((await t.ctx.db.kysely.selectFrom("attachments").select("id").execute()).length).toBe(attachmentsBefore);

    // Within the quota: accepted.
    expectSuccess(await t.upload("hamlet", "/api/v1/user_uploads", [{ data: Buffer.alloc(1000, 2), filename: "small.bin", type: "application/octet-stream" }]));
    await setLimits({ upload_quota_mib: null });
    expectSuccess(await t.upload("hamlet", "/api/v1/user_uploads", [{ data: tooBig, filename: "big.bin", type: "application/octet-stream" }]));
  });
});
