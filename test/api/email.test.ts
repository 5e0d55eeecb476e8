import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { transaction } from "../../src/appContext.js";
import { outboxDir } from "../../src/email/outbox.js";
import { queueEmail } from "../../src/email/queue.js";
import { useSmtpSink } from "../support/smtpSink.js";
import { type TestServer, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";

async function emailJobs(t: TestServer) {
  return t.ctx.db.kysely.selectFrom("jobs").selectAll().where("kind", "=", "email").orderBy("id").execute();
}

describe("email delivery through SMTP (PARLEY_SMTP_URL)", () => {
  const smtp = useSmtpSink();
  const t = useTestServer(smtp.overrides);

  it("sends an email queued in a committed transaction", async () => {
    await transaction(t.ctx, (tx) =>
      queueEmail(tx, { to: "hamlet@zulip.com", subject: "Ophelia’s letter", text: "Doubt thou the stars are fire.", template: "test_letter" }),
    );
    await t.drainJobs();
    const received = await smtp.sink().waitFor((m) => m.rcptTo.includes("hamlet@zulip.com"));
    expect(received.parsed.subject).toBe("Ophelia’s letter");
    expect(received.parsed.text?.trim()).toBe("Doubt thou the stars are fire.");
    expect(received.parsed.headers.get("x-parley-template")).toBe("test_letter");
    expect(received.mailFrom).toBe("noreply@localhost");
    const job = at(await emailJobs(t), 0);
    expect(job).toMatchObject({ status: "done", attempts: 1, last_error: null });
  });

  it("sends the HTML part when there is one", async () => {
    await transaction(t.ctx, (tx) =>
      queueEmail(tx, { to: "othello@zulip.com", subject: "Handkerchief", text: "plain", html: "<p><b>rich</b></p>", template: "test_html" }),
    );
    await t.drainJobs();
    const received = await smtp.sink().waitFor((m) => m.rcptTo.includes("othello@zulip.com"));
    expect(received.parsed.html).toContain("<b>rich</b>");
  });

  it("sends nothing when the transaction rolls back", async () => {
    const before = (await emailJobs(t)).length;
    await expect(
      transaction(t.ctx, async (tx) => {
        await queueEmail(tx, { to: "iago@zulip.com", subject: "never", text: "never", template: "test_rollback" });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    await t.drainJobs();
    expect(await emailJobs(t)).toHaveLength(before);
    expect(smtp.sink().messages.some((m) => m.rcptTo.includes("iago@zulip.com"))).toBe(false);
  });
});

describe("email delivery without an SMTP server", () => {
  const t = useTestServer();

  it("writes the email to the outbox folder as an .eml file", async () => {
    await transaction(t.ctx, (tx) =>
      queueEmail(tx, { to: "cordelia@zulip.com", subject: "Nothing will come of nothing", text: "Speak again.", template: "test_outbox" }),
    );
    await t.drainJobs();
    const dir = outboxDir(t.config.dataDir);
    const files = fs.readdirSync(dir);
    expect(files).toHaveLength(1);
    const job = at(await emailJobs(t), 0);
    expect(files[0]).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\dZ-${String(job.id).padStart(8, "0")}-test_outbox\\.eml$`));
    const raw = fs.readFileSync(path.join(dir, at(files, 0)), "utf8");
    expect(raw).toContain("\r\nTo: cordelia@zulip.com\r\n");
    expect(raw).toContain("Subject: Nothing will come of nothing\r\n");
    expect(raw).toContain("Speak again.");
    expect(raw).toMatch(/^Content-Type: text\/plain/m);
    expect(job).toMatchObject({ status: "done", attempts: 1 });
  });
});

describe("email delivery when the SMTP server refuses", () => {
  const smtp = useSmtpSink({ refuse: "Mailbox unavailable" });
  const t = useTestServer(smtp.overrides);

  it("leaves the job pending for a retry with the attempt and the error recorded", async () => {
    await transaction(t.ctx, (tx) => queueEmail(tx, { to: "polonius@zulip.com", subject: "Words", text: "words, words", template: "test_refused" }));
    await t.drainJobs();
    const job = at(await emailJobs(t), 0);
    expect(job.status).toBe("pending");
    expect(job.attempts).toBe(1);
    expect(job.last_error).toContain("Mailbox unavailable");
    expect(job.run_at).toBeGreaterThan(Math.floor(Date.now() / 1000));
    expect(smtp.sink().messages).toHaveLength(0);
  });
});
