import { describe, expect, it } from "vitest";
import { type ReceivedEmail, useSmtpSink } from "../support/smtpSink.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

// Changing one's email address as Zulip does (zerver/views/user_settings.py: json_change_settings,
// confirm_email_change): a link to the new address, a notice to the old one once it is used, and
// the organization's email_changes_disabled. Delivered through SMTP, as a mail client sees it.
const smtp = useSmtpSink();
const t = useTestServer(smtp.overrides);

/** Mail delivered to `to` after the first `since`, once the email jobs ran. */
async function mailTo(to: string, since: number, subject: RegExp): Promise<ReceivedEmail> {
  await t.drainJobs();
  const sink = smtp.sink();
  return sink.waitFor((m) => sink.messages.indexOf(m) >= since && m.rcptTo.includes(to) && subject.test(m.parsed.subject ?? ""));
}

/** The confirmation link's path in a "verify your new address" email (on the test server, not the configured URL). */
function linkIn(mail: ReceivedEmail): string {
  const path = /http:\/\/localhost:9991(\/accounts\/confirm_new_email\/[A-Za-z0-9]+)/.exec(mail.parsed.text ?? "")?.[1];
  expect(path, mail.parsed.text).toBeDefined();
  return path!;
}

describe("changing one's email address", () => {
  it("mails a link to the new address; opening it changes the address and tells the old one", async () => {
    const since = smtp.sink().messages.length;
    expectSuccess(await t.patch("cordelia", "/api/v1/settings", { email: "cordelia@example.net" }));
    const confirm = await mailTo("cordelia@example.net", since, /^Verify your new email address/);
    expect(confirm.parsed.text).toContain("from cordelia@zulip.com to cordelia@example.net");
    // The old address hears nothing until the change is made.
    expect(
      smtp
        .sink()
        .messages.slice(since)
        .filter((m) => m.rcptTo.includes("cordelia@zulip.com")),
    ).toEqual([]);
    expect((await t.user("cordelia")).delivery_email).toBe("cordelia@zulip.com");

    const page = await fetch(t.baseUrl + linkIn(confirm));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("changed from cordelia@zulip.com to cordelia@example.net");
    expect((await t.user("cordelia@example.net")).delivery_email).toBe("cordelia@example.net");
    const notice = await mailTo("cordelia@zulip.com", since, /^Email address changed/);
    expect(notice.parsed.text).toContain("was changed to cordelia@example.net");
    expect(notice.parsed.text).toContain("If you did not make this change");
    // Used once.
    expect((await fetch(t.baseUrl + linkIn(confirm))).status).toBe(404);
  });

  it("is refused to members while the organization disables email changes, administrators excepted", async () => {
    // A link made while changes were allowed.
    const since = smtp.sink().messages.length;
    expectSuccess(await t.patch("othello", "/api/v1/settings", { email: "othello@example.net" }));
    const earlier = linkIn(await mailTo("othello@example.net", since, /^Verify your new email address/));

    expectSuccess(await t.patch("iago", "/api/v1/realm", { email_changes_disabled: true }));
    try {
      const refused = smtp.sink().messages.length;
      expectError(
        await t.patch("hamlet", "/api/v1/settings", { email: "hamlet@example.net" }),
        400,
        "Email address changes are disabled in this organization.",
      );
      const page = await fetch(t.baseUrl + earlier);
      expect(page.status).toBe(400);
      expect(await page.text()).toContain("Email address changes are disabled in this organization.");
      expect((await t.user("othello")).delivery_email).toBe("othello@zulip.com");
      // An administrator may still change his own.
      expectSuccess(await t.patch("iago", "/api/v1/settings", { email: "iago@example.net" }));
      await mailTo("iago@example.net", refused, /^Verify your new email address/);
      expect(
        smtp
          .sink()
          .messages.slice(refused)
          .filter((m) => m.rcptTo.includes("hamlet@example.net")),
      ).toEqual([]);
    } finally {
      expectSuccess(await t.patch("iago", "/api/v1/realm", { email_changes_disabled: false }));
    }
    // The earlier link was not used up by the refusal.
    expect((await fetch(t.baseUrl + earlier)).status).toBe(200);
    expect((await t.user("othello@example.net")).delivery_email).toBe("othello@example.net");
  });
});
