import { describe, expect, it } from "vitest";
import { useSmtpSink } from "../support/smtpSink.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { seedChannels } from "../support/seed.js";
import { at } from "../support/at.js";
import { csrfTokenIn, PageBrowser } from "../support/pageBrowser.js";
import { group } from "../../src/util/defined.js";

// Invitations (Zulip 10.2's /invites endpoints) and accepting them at /join/<key>/.
const smtp = useSmtpSink();
const t = useTestServer(smtp.overrides);

const VERONA = seedChannels.verona.id; // a default channel of the dev realm
const DENMARK = seedChannels.denmark.id;
const CORE_TEAM = seedChannels.coreTeam.id; // private; othello is not subscribed

async function invites(who: string): Promise<any[]> {
  return expectSuccess(await t.get(who, "/api/v1/invites")).invites;
}

async function keyOf(link: string): Promise<string> {
  const match = /\/join\/([a-z0-9]{24})\/$/.exec(link);
  expect(match, link).not.toBeNull();
  return group(match!, 1);
}

async function emailInviteFor(email: string): Promise<{ id: number; key: string }> {
  const row = await t.ctx.db.kysely
    .selectFrom("invitations")
    .select(["id", "confirmation_key"])
    .where("email", "=", email)
    .orderBy("id", "desc")
    .executeTakeFirstOrThrow();
  return { id: row.id, key: row.confirmation_key };
}

/** Opens the link and submits the sign-up form; returns the browser and the response to the POST. */
async function signUp(path: string, fields: Record<string, string>) {
  const browser = new PageBrowser(t);
  const page = await browser.get(path);
  expect(page.status).toBe(200);
  const posted = await browser.post(path, page.html, fields);
  return { browser, page, posted };
}

describe("POST /invites", () => {
  it("invites by email: the invitation is listed, the email carries a working link, admins and the referrer hear of it", async () => {
    const { events } = await t.captureEvents(async () => {
      expectSuccess(
        await t.post("hamlet", "/api/v1/invites", { invitee_emails: "Rosalind <rosalind@example.com>, orlando@example.com", stream_ids: [DENMARK] }),
      );
    });
    const changed = events.filter((e) => e.event.type === "invites_changed");
    expect(changed).toHaveLength(1);
    const [hamlet, iago, desdemona, othello] = await Promise.all([t.user("hamlet"), t.user("iago"), t.user("desdemona"), t.user("othello")]);
    expect(at(changed, 0).users).toEqual(expect.arrayContaining([hamlet.id, iago.id, desdemona.id]));
    expect(at(changed, 0).users).not.toContain(othello.id);

    const listed = (await invites("hamlet")).filter((i) => ["rosalind@example.com", "orlando@example.com"].includes(i.email));
    expect(listed).toHaveLength(2);
    expect(listed[0]).toMatchObject({ invited_by_user_id: hamlet.id, invited_as: 400, is_multiuse: false, notify_referrer_on_join: true });
    expect(listed[0].expiry_date - listed[0].invited).toBe(10 * 24 * 3600);

    await t.drainJobs();
    const mail = await smtp.sink().waitFor((m) => m.rcptTo.includes("rosalind@example.com"));
    expect(mail.parsed.subject).toBe("King Hamlet has invited you to join Zulip Dev");
    const link = /http:\/\/localhost:9991(\/join\/[a-z0-9]{24}\/)/.exec(mail.parsed.text ?? "")?.[1];
    expect(link).toBeDefined();
    // The link (on the test server's address in place of the configured external URL) signs Rosalind up.
    const { browser, page, posted } = await signUp(link!, { full_name: "Rosalind", password: "as-you-like-it" });
    expect(page.html).toContain('value="rosalind@example.com" readonly');
    expect(posted.status).toBe(302);
    expect(await browser.json("/users/me")).toMatchObject({ delivery_email: "rosalind@example.com", full_name: "Rosalind" });
  });

  it("refuses guests, blank lists, roles above the inviter's, and channels the inviter cannot see", async () => {
    expectError(await t.post("polonius", "/api/v1/invites", { invitee_emails: "a@example.com", stream_ids: [] }), 400, "Not allowed for guest users");
    expectError(await t.post("hamlet", "/api/v1/invites", { invitee_emails: "", stream_ids: [] }), 400, "You must specify at least one email address.");
    expectError(
      await t.post("hamlet", "/api/v1/invites", { invitee_emails: "a@example.com" }),
      400,
      "Missing 'stream_ids' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    expectError(
      await t.post("hamlet", "/api/v1/invites", { invitee_emails: "a@example.com", stream_ids: [], invite_as: 200 }),
      400,
      "Must be an organization administrator",
    );
    expectError(
      await t.post("hamlet", "/api/v1/invites", { invitee_emails: "a@example.com", stream_ids: [], invite_as: 300 }),
      400,
      "Must be an organization administrator",
    );
    expectError(
      await t.post("iago", "/api/v1/invites", { invitee_emails: "a@example.com", stream_ids: [], invite_as: 100 }),
      400,
      "Must be an organization owner",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expectError(await t.post("iago", "/api/v1/invites", { invitee_emails: "a@example.com", stream_ids: [], invite_as: 500 }), 400, "Invalid invite_as");
    expectError(
      await t.post("othello", "/api/v1/invites", { invitee_emails: "a@example.com", stream_ids: [CORE_TEAM] }),
      400,
      `Invalid channel ID ${CORE_TEAM}. No invites were sent.`,
    );
    expectError(
      await t.post("hamlet", "/api/v1/invites", { invitee_emails: "a@example.com", stream_ids: [9999] }),
      400,
      "Invalid channel ID 9999. No invites were sent.",
    );
    expectError(
      await t.post("hamlet", "/api/v1/invites", { invitee_emails: "a@example.com", stream_ids: [], invite_expires_in_minutes: 0 }),
      400,
      "invite_expires_in_minutes is too small",
    );
    expect((await invites("iago")).some((i) => i.email === "a@example.com")).toBe(false);
    // Owners may invite owners.
    expectSuccess(
      await t.post("desdemona", "/api/v1/invites", { invitee_emails: "owner@example.com", stream_ids: [], invite_as: 100, invite_expires_in_minutes: null }),
    );
    const owner = (await invites("desdemona")).find((i) => i.email === "owner@example.com");
    expect(owner).toMatchObject({ invited_as: 100, expiry_date: null });
  });

  it("follows can_invite_users_group", async () => {
    await t.withRealmSettings({ can_invite_users_group: await t.systemGroupId("role:administrators") }, async () => {
      expectError(await t.post("hamlet", "/api/v1/invites", { invitee_emails: "b@example.com", stream_ids: [] }), 400, "Insufficient permission");
      expectSuccess(await t.post("iago", "/api/v1/invites", { invitee_emails: "b@example.com", stream_ids: [] }));
    });
  });

  it("keeps members who joined in the last three days from inviting to an organization anyone may join", async () => {
    await t.withRealmSettings({ invite_required: false }, async () => {
      const res = expectError(
        await t.post("hamlet", "/api/v1/invites", { invitee_emails: "h@example.com", stream_ids: [] }),
        400,
        "Your account is too new to send invites for this organization. Ask an organization admin, or a more experienced user.",
        "INVITATION_FAILED",
      );
      expect(res).toMatchObject({ errors: [], sent_invitations: false });
      expectSuccess(await t.post("iago", "/api/v1/invites", { invitee_emails: "h@example.com", stream_ids: [] }));
    });
  });

  it("needs the right to subscribe others for channels that are not default channels", async () => {
    await t.withRealmSettings({ can_add_subscribers_group: await t.systemGroupId("role:administrators") }, async () => {
      expectError(
        await t.post("hamlet", "/api/v1/invites", { invitee_emails: "c@example.com", stream_ids: [DENMARK] }),
        400,
        "You do not have permission to subscribe other users to channels.",
      );
      expectSuccess(await t.post("hamlet", "/api/v1/invites", { invitee_emails: "c@example.com", stream_ids: [VERONA] }));
    });
  });

  it("needs the right to add members to the groups", async () => {
    const group = await t.ctx.db.kysely.selectFrom("user_groups").select("id").where("name", "=", "hamletcharacters").executeTakeFirstOrThrow();
    expectError(
      await t.post("hamlet", "/api/v1/invites", { invitee_emails: "d@example.com", stream_ids: [], group_ids: [group.id] }),
      400,
      "Insufficient permission",
    );
    expectError(
      await t.post("desdemona", "/api/v1/invites", { invitee_emails: "d@example.com", stream_ids: [], group_ids: [99999] }),
      400,
      "Invalid user group",
    );
  });

  it("reports invalid addresses without inviting anyone, and skips addresses already in use", async () => {
    const bad = expectError(
      await t.post("hamlet", "/api/v1/invites", { invitee_emails: "not-an-email\nhamlet@zulip.com\ne@example.com", stream_ids: [] }),
      400,
      "Some emails did not validate, so we didn't send any invitations.",
      "INVITATION_FAILED",
    );
    expect(bad).toMatchObject({ sent_invitations: false, license_limit_reached: false, daily_limit_reached: false });
    expect(bad.errors).toEqual([
      ["not-an-email", "Invalid address.", false],
      ["hamlet@zulip.com", "Already has an account.", false],
    ]);
    expect((await invites("hamlet")).some((i) => i.email === "e@example.com")).toBe(false);

    const partly = expectError(
      await t.post("hamlet", "/api/v1/invites", { invitee_emails: "HAMLET@zulip.com, notification-bot@zulip.com, e@example.com", stream_ids: [] }),
      400,
      "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
      "INVITATION_FAILED",
    );
    expect(partly.sent_invitations).toBe(true);
    expect(partly.errors).toEqual([
      ["HAMLET@zulip.com", "Already has an account.", false],
      ["notification-bot@zulip.com", "Reserved for system bots.", false],
    ]);
    expect((await invites("hamlet")).some((i) => i.email === "e@example.com")).toBe(true);

    const none = expectError(
      await t.post("hamlet", "/api/v1/invites", { invitee_emails: "othello@zulip.com", stream_ids: [] }),
      400,
      "We weren't able to invite anyone.",
      "INVITATION_FAILED",
    );
    expect(none.sent_invitations).toBe(false);
  });

  it("refuses every address when the organization is restricted to domains it does not list", async () => {
    await t.withRealmSettings({ emails_restricted_to_domains: true }, async () => {
      const res = expectError(
        await t.post("iago", "/api/v1/invites", { invitee_emails: "f@example.com, g+x@example.com", stream_ids: [] }),
        400,
        "Some emails did not validate, so we didn't send any invitations.",
        "INVITATION_FAILED",
      );
      expect(res.errors).toEqual([
        ["f@example.com", "Outside your domain.", false],
        ["g+x@example.com", "Email addresses containing + are not allowed.", false],
      ]);
    });
  });
});

describe("GET, DELETE and resend", () => {
  it("lists invitations to administrators (all) and to others (their own)", async () => {
    expectSuccess(await t.post("othello", "/api/v1/invites", { invitee_emails: "othello-guest@example.com", stream_ids: [] }));
    const othello = await t.user("othello");
    expect((await invites("othello")).every((i) => i.invited_by_user_id === othello.id)).toBe(true);
    expect((await invites("hamlet")).some((i) => i.email === "othello-guest@example.com")).toBe(false);
    expect((await invites("iago")).some((i) => i.email === "othello-guest@example.com")).toBe(true);
    expectError(await t.get("polonius", "/api/v1/invites"), 400, "Not allowed for guest users");
  });

  it("revokes an email invitation: the referrer or an administrator; the link stops working", async () => {
    expectSuccess(await t.post("hamlet", "/api/v1/invites", { invitee_emails: "revoked@example.com", stream_ids: [] }));
    const { id, key } = await emailInviteFor("revoked@example.com");
    expectError(await t.delete("othello", `/api/v1/invites/${id}`), 400, "Must be an organization administrator");
    expectError(await t.delete("hamlet", "/api/v1/invites/99999"), 400, "No such invitation");
    const { events } = await t.captureEvents(async () => expectSuccess(await t.delete("iago", `/api/v1/invites/${id}`)));
    expect(events.map((e) => e.event.type)).toEqual(["invites_changed"]);
    expect(at(events, 0).users).toContain((await t.user("hamlet")).id);
    expectError(await t.delete("iago", `/api/v1/invites/${id}`), 400, "No such invitation");
    expect((await invites("hamlet")).some((i) => i.id === id && !i.is_multiuse)).toBe(false);
    const page = await new PageBrowser(t).get(`/join/${key}/`);
    expect(page.status).toBe(404);
    expect(page.html).toContain("The confirmation link has expired or been deactivated.");
  });

  it("resends an email invitation with the same link", async () => {
    expectSuccess(await t.post("hamlet", "/api/v1/invites", { invitee_emails: "resend@example.com", stream_ids: [] }));
    const { id, key } = await emailInviteFor("resend@example.com");
    expectError(await t.post("othello", `/api/v1/invites/${id}/resend`), 400, "Must be an organization administrator");
    expectError(await t.post("hamlet", "/api/v1/invites/99999/resend"), 400, "No such invitation");
    expectSuccess(await t.post("hamlet", `/api/v1/invites/${id}/resend`));
    await t.drainJobs();
    const deadline = Date.now() + 5000;
    while (smtp.sink().messages.filter((m) => m.rcptTo.includes("resend@example.com")).length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    const mails = smtp.sink().messages.filter((m) => m.rcptTo.includes("resend@example.com"));
    expect(mails).toHaveLength(2);
    for (const mail of mails) expect(mail.parsed.text).toContain(`/join/${key}/`);
  });
});

describe("reusable links (POST /invites/multiuse)", () => {
  it("are for create_multiuse_invite_group (administrators by default) and can be revoked once", async () => {
    expectError(await t.post("hamlet", "/api/v1/invites/multiuse", {}), 400, "Insufficient permission");
    expectError(await t.post("polonius", "/api/v1/invites/multiuse", {}), 400, "Not allowed for guest users");
    expectError(await t.post("iago", "/api/v1/invites/multiuse", { invite_as: 100 }), 400, "Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
    const { invite_link } = expectSuccess(await t.post("iago", "/api/v1/invites/multiuse", { invite_expires_in_minutes: 60 }));
    expect(invite_link).toMatch(/^http:\/\/localhost:9991\/join\/[a-z0-9]{24}\/$/);
    const listed = (await invites("iago")).find((i) => i.is_multiuse && i.link_url === invite_link);
    expect(listed).toMatchObject({ invited_as: 400, invited_by_user_id: (await t.user("iago")).id });
    expect(listed.expiry_date - listed.invited).toBe(3600);
    expect(listed).not.toHaveProperty("email");

    await t.withRealmSettings({ create_multiuse_invite_group: await t.systemGroupId("role:members") }, async () => {
      expectSuccess(await t.post("hamlet", "/api/v1/invites/multiuse", {}));
    });
    expectError(await t.delete("hamlet", `/api/v1/invites/multiuse/${listed.id}`), 400, "Must be an organization administrator");
    expectError(await t.delete("iago", "/api/v1/invites/multiuse/99999"), 400, "No such invitation");
    expectSuccess(await t.delete("iago", `/api/v1/invites/multiuse/${listed.id}`));
    expectError(await t.delete("iago", `/api/v1/invites/multiuse/${listed.id}`), 400, "Invitation has already been revoked");
    const page = await new PageBrowser(t).get(`/join/${await keyOf(invite_link)}/`);
    expect(page.status).toBe(404);
  });
});

describe("signing up at /join/<key>/", () => {
  it("creates the invited account, signs it in, uses the invitation once and tells the referrer", async () => {
    expectSuccess(
      await t.post("hamlet", "/api/v1/invites", { invitee_emails: "viola@example.com", stream_ids: [DENMARK], include_realm_default_subscriptions: true }),
    );
    expectSuccess(await t.post("iago", "/api/v1/invites", { invitee_emails: "viola@example.com", stream_ids: [] }));
    const iagoInvite = await emailInviteFor("viola@example.com");
    const hamletInvite = await t.ctx.db.kysely
      .selectFrom("invitations")
      .select(["id", "confirmation_key"])
      .where("email", "=", "viola@example.com")
      .orderBy("id")
      .executeTakeFirstOrThrow();
    const path = `/join/${hamletInvite.confirmation_key}/`;

    const { browser, page, posted } = await signUp(path, { full_name: "Viola", password: "twelfth-night-2" });
    expect(page.res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(page.html).not.toMatch(/<script/);
    expect(posted.status).toBe(302);
    expect(posted.res.headers.get("location")).toBe("/");
    expect(browser.cookies.has("sessionid")).toBe(true);

    const me = await browser.json("/users/me");
    expect(me).toMatchObject({ delivery_email: "viola@example.com", full_name: "Viola", role: 400 });
    const subs = (await browser.json("/users/me/subscriptions")).subscriptions.map((s: any) => s.stream_id).sort();
    expect(subs).toEqual([VERONA, DENMARK]);

    // Used once: the link is dead, and so is the other invitation of the same address.
    expect((await new PageBrowser(t).get(path)).status).toBe(404);
    expect((await new PageBrowser(t).get(`/join/${iagoInvite.key}/`)).status).toBe(404);
    expect((await invites("iago")).some((i) => i.email === "viola@example.com")).toBe(false);

    const dms = expectSuccess(
      await t.get("hamlet", "/api/v1/messages", {
        anchor: "newest",
        num_before: 5,
        num_after: 0,
        narrow: [{ operator: "dm", operand: "notification-bot@zulip.com" }],
      }),
    );
    expect(dms.messages.at(-1).content).toContain(`>Viola</span> accepted your invitation to join Zulip!`);
  });

  it("gives the invited role and only the chosen channels when defaults are not included", async () => {
    expectSuccess(
      await t.post("iago", "/api/v1/invites", {
        invitee_emails: "sebastian@example.com",
        stream_ids: [DENMARK],
        invite_as: 600,
        notify_referrer_on_join: false,
      }),
    );
    const { key } = await emailInviteFor("sebastian@example.com");
    const { browser, posted } = await signUp(`/join/${key}/`, { full_name: "Sebastian", password: "shipwreck-1" });
    expect(posted.status).toBe(302);
    expect(await browser.json("/users/me")).toMatchObject({ delivery_email: "sebastian@example.com", role: 600 });
    expect((await browser.json("/users/me/subscriptions")).subscriptions.map((s: any) => s.stream_id)).toEqual([DENMARK]);
  });

  it("shows form errors on the page and creates nothing", async () => {
    expectSuccess(await t.post("hamlet", "/api/v1/invites", { invitee_emails: "malvolio@example.com", stream_ids: [] }));
    const { key } = await emailInviteFor("malvolio@example.com");
    const { posted } = await signUp(`/join/${key}/`, { full_name: "M", password: "yellow-stockings" });
    expect(posted.status).toBe(400);
    expect(posted.html).toContain("Name too short!");
    expect(posted.html).toContain('name="csrfmiddlewaretoken"');
    const row = await t.ctx.db.kysely.selectFrom("users").select("id").where("delivery_email", "=", "malvolio@example.com").executeTakeFirst();
    expect(row).toBeUndefined();
    // The invitation still works.
    expect((await signUp(`/join/${key}/`, { full_name: "Malvolio", password: "yellow-stockings" })).posted.status).toBe(302);
  });

  it("refuses a form without the page's CSRF token", async () => {
    expectSuccess(await t.post("hamlet", "/api/v1/invites", { invitee_emails: "feste@example.com", stream_ids: [] }));
    const { key } = await emailInviteFor("feste@example.com");
    const browser = new PageBrowser(t);
    await browser.get(`/join/${key}/`);
    const missing = await browser.request("POST", `/join/${key}/`, { full_name: "Feste", password: "hey-robin" });
    expect(missing.status).toBe(403);
    const forged = await new PageBrowser(t).request("POST", `/join/${key}/`, {
      csrfmiddlewaretoken: "x".repeat(32),
      full_name: "Feste",
      password: "hey-robin",
    });
    expect(forged.status).toBe(403);
    expect((await new PageBrowser(t).get(`/join/${key}/`)).status).toBe(200);
  });

  it("lets a reusable link sign up several people, each confirming their address by email, with its role and groups", async () => {
    const group = await t.ctx.db.kysely.selectFrom("user_groups").select("id").where("name", "=", "hamletcharacters").executeTakeFirstOrThrow();
    const { invite_link } = expectSuccess(
      await t.post("desdemona", "/api/v1/invites/multiuse", { invite_as: 300, group_ids: [group.id], stream_ids: [DENMARK] }),
    );
    const path = new URL(invite_link).pathname;
    const form = await new PageBrowser(t).get(path);
    expect(form.html).toContain('name="email"');
    expect(form.html).not.toContain('name="password"');
    const taken = await signUp(path, { email: "hamlet@zulip.com" });
    expect(taken.posted.status).toBe(400);
    expect(taken.posted.html).toContain("hamlet@zulip.com already has an account.");
    const badEmail = await signUp(path, { email: "nope" });
    expect(badEmail.posted.html).toContain("Invalid address.");

    for (const name of ["olivia", "maria"]) {
      const asked = await signUp(path, { email: `${name}@example.com`, full_name: "ignored", password: "ignored" });
      expect(asked.posted.status).toBe(200);
      expect(asked.posted.html).toContain("Check your email");
      expect(await t.ctx.db.kysely.selectFrom("users").select("id").where("delivery_email", "=", `${name}@example.com`).executeTakeFirst()).toBeUndefined();
      await t.drainJobs();
      const mail = await smtp.sink().waitFor((m) => m.rcptTo.includes(`${name}@example.com`));
      const confirmPath = /http:\/\/localhost:9991(\/join\/[a-z0-9]{24}\/)/.exec(mail.parsed.text ?? "")?.[1];
      expect(confirmPath).toBeDefined();
      expect(confirmPath).not.toBe(path);

      const { browser, page, posted } = await signUp(confirmPath!, { full_name: name, password: "illyria-1601" });
      expect(page.html).toContain(`value="${name}@example.com" readonly`);
      expect(posted.status).toBe(302);
      const me = await browser.json("/users/me");
      expect(me).toMatchObject({ delivery_email: `${name}@example.com`, role: 300 });
      expect(expectSuccess(await t.get("iago", `/api/v1/user_groups/${group.id}/members/${me.user_id}`)).is_user_group_member).toBe(true);
      expect((await browser.json("/users/me/subscriptions")).subscriptions.map((s: any) => s.stream_id)).toEqual([DENMARK]);
      // The address's confirmation is used up.
      expect((await new PageBrowser(t).get(confirmPath!)).status).toBe(404);
    }
    // The link itself is not used up.
    expect((await new PageBrowser(t).get(path)).status).toBe(200);
    expect((await invites("desdemona")).some((i) => i.link_url === invite_link)).toBe(true);

    // A confirmation dies with its link.
    expect((await signUp(path, { email: "sir-toby@example.com" })).posted.status).toBe(200);
    await t.drainJobs();
    const mail = await smtp.sink().waitFor((m) => m.rcptTo.includes("sir-toby@example.com"));
    const confirmPath = at(/http:\/\/localhost:9991(\/join\/[a-z0-9]{24}\/)/.exec(mail.parsed.text ?? "")!, 1);
    const listed = (await invites("desdemona")).find((i) => i.link_url === invite_link);
    expectSuccess(await t.delete("desdemona", `/api/v1/invites/multiuse/${listed.id}`));
    expect((await new PageBrowser(t).get(confirmPath)).status).toBe(404);
  });

  /** Opens each link in its own browser, then submits all the forms at once. */
  async function signUpAtOnce(paths: string[], fields: Record<string, string>) {
    const opened = await Promise.all(
      paths.map(async (path) => {
        const browser = new PageBrowser(t);
        const page = await browser.get(path);
        expect(page.status).toBe(200);
        return { browser, path, token: csrfTokenIn(page.html) };
      }),
    );
    return Promise.all(opened.map(({ browser, path, token }) => browser.request("POST", path, { csrfmiddlewaretoken: token, ...fields })));
  }

  const accountsOf = (email: string) => t.ctx.db.kysely.selectFrom("users").select("id").where("delivery_email", "=", email).execute();

  it("creates one account when several sign-ups for one address race; the others are told it has an account or the link is used", async () => {
    expectSuccess(await t.post("hamlet", "/api/v1/invites", { invitee_emails: "rosencrantz@example.com", stream_ids: [] }));
    expectSuccess(await t.post("iago", "/api/v1/invites", { invitee_emails: "rosencrantz@example.com", stream_ids: [] }));
    const keys = (await t.ctx.db.kysely.selectFrom("invitations").select("confirmation_key").where("email", "=", "rosencrantz@example.com").execute()).map(
      (r) => r.confirmation_key,
    );
    const posted = await signUpAtOnce(
      [...keys, ...keys, ...keys].map((key) => `/join/${key}/`),
      { full_name: "Rosencrantz", password: "elsinore-1600" },
    );
    expect(posted.filter((p) => p.status === 302)).toHaveLength(1);
    for (const p of posted.filter((p) => p.status !== 302)) {
      if (p.status === 400) expect(p.html).toContain("rosencrantz@example.com already has an account.");
      else expect([p.status, p.html]).toEqual([404, expect.stringContaining("The confirmation link has expired or been deactivated.")]);
    }
    expect(await accountsOf("rosencrantz@example.com")).toHaveLength(1);
  });

  it("creates one account when an address confirmed twice through a reusable link signs up twice at once", async () => {
    const { invite_link } = expectSuccess(await t.post("desdemona", "/api/v1/invites/multiuse", { invite_as: 400, stream_ids: [] }));
    const path = new URL(invite_link).pathname;
    const confirmPaths: string[] = [];
    for (let n = 0; n < 4; n++) {
      expect((await signUp(path, { email: "guildenstern@example.com" })).posted.status).toBe(200);
      await t.drainJobs();
      const mails = await smtp.sink().waitFor((m) => m.rcptTo.includes("guildenstern@example.com") && !confirmPaths.some((c) => m.parsed.text?.includes(c)));
      confirmPaths.push(at(/http:\/\/localhost:9991(\/join\/[a-z0-9]{24}\/)/.exec(mails.parsed.text ?? "")!, 1));
    }
    const posted = await signUpAtOnce(confirmPaths, { full_name: "Guildenstern", password: "elsinore-1601" });
    expect(posted.map((p) => p.status).sort()).toEqual([302, 400, 400, 400]);
    for (const p of posted.filter((p) => p.status === 400)) expect(p.html).toContain("guildenstern@example.com already has an account.");
    expect(await accountsOf("guildenstern@example.com")).toHaveLength(1);
  });

  it("refuses an expired link and an unknown key", async () => {
    expectSuccess(await t.post("hamlet", "/api/v1/invites", { invitee_emails: "antonio@example.com", stream_ids: [], invite_expires_in_minutes: 5 }));
    const { id, key } = await emailInviteFor("antonio@example.com");
    await t.ctx.db.kysely
      .updateTable("invitations")
      .set({ expires_at: Math.floor(Date.now() / 1000) - 1 })
      .where("id", "=", id)
      .execute();
    const expired = await new PageBrowser(t).get(`/join/${key}/`);
    expect(expired.status).toBe(404);
    expect(expired.html).toContain("The confirmation link has expired or been deactivated.");
    expect((await invites("hamlet")).some((i) => i.id === id && !i.is_multiuse)).toBe(false);
    expectError(await t.post("hamlet", `/api/v1/invites/${id}/resend`), 400, "No such invitation");
    const unknown = await new PageBrowser(t).get(`/join/${"a".repeat(24)}/`);
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain("We couldn't find your confirmation ID.");
  });

  it("expires the open invitations of a user who is deactivated", async () => {
    expectSuccess(await t.post("othello", "/api/v1/invites", { invitee_emails: "cassio@example.com", stream_ids: [] }));
    const { key } = await emailInviteFor("cassio@example.com");
    expect((await new PageBrowser(t).get(`/join/${key}/`)).status).toBe(200);
    const othello = await t.user("othello");
    const { events } = await t.captureEvents(async () => expectSuccess(await t.delete("iago", `/api/v1/users/${othello.id}`)));
    expect(events.filter((e) => e.event.type === "invites_changed")).toHaveLength(1);
    expect((await invites("iago")).some((i) => i.invited_by_user_id === othello.id)).toBe(false);
    expect((await new PageBrowser(t).get(`/join/${key}/`)).status).toBe(404);
  });
});
