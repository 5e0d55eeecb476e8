import type { SendMailOptions } from "nodemailer";
import type { AppContext } from "../appContext.js";
import type { Job } from "../db/schema.js";
import { lazy } from "../util/lazy.js";
import { outboxDir, outboxFileName, writeOutboxEmail } from "../email/outbox.js";
import type { OutgoingEmail } from "../email/queue.js";

/**
 * The `email` job: sends one queued email. With PARLEY_SMTP_URL, through that SMTP server (a
 * failure throws, so the job runner retries with backoff); without, the email is written to the
 * outbox folder. The outbox file name depends only on the job, so a retried job overwrites
 * rather than duplicates.
 */
export async function deliverEmail(ctx: AppContext, email: OutgoingEmail, job: Job): Promise<void> {
  const message = {
    from: ctx.config.emailFrom,
    to: email.to,
    subject: email.subject,
    text: email.text,
    ...(email.html !== undefined ? { html: email.html } : {}),
    headers: { "X-Parley-Template": email.template },
  };
  if (ctx.config.smtpUrl) {
    await sendThroughSmtp(ctx.config.smtpUrl, message);
    ctx.log.info({ job: job.id, template: email.template }, "email sent");
    return;
  }
  const raw = await composeRfc822(message);
  const file = await writeOutboxEmail(outboxDir(ctx.config.dataDir), outboxFileName(job.created_at, job.id, email.template), raw);
  ctx.log.info({ job: job.id, template: email.template, file }, "email written to the outbox");
}

// nodemailer is loaded by the first email, not at start: a server that sends none never pays for
// loading it or holding it in memory.
const loadNodemailer = lazy(async () => (await import("nodemailer")).default);

// Well under the job lease (120 s), so a dead server fails the attempt instead of the lease.
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

async function sendThroughSmtp(url: string, message: SendMailOptions): Promise<void> {
  const nodemailer = await loadNodemailer();
  const transport = nodemailer.createTransport({ url, ...SMTP_TIMEOUTS });
  try {
    await transport.sendMail(message);
  } finally {
    transport.close();
  }
}

async function composeRfc822(message: SendMailOptions): Promise<Buffer> {
  const nodemailer = await loadNodemailer();
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "windows" });
  const info = await transport.sendMail(message);
  return info.message as Buffer;
}
