import type { Tx } from "../db/tx.js";

/**
 * The one way to send an email: a durable `email` job written in the caller's transaction, so
 * the email goes out only if the change commits, and survives a crash. The job handler
 * (src/jobs/email.ts) sends through SMTP (PARLEY_SMTP_URL) or writes to the outbox folder.
 */
export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Tag for logs and the outbox listing, e.g. "deactivation", "email_change". */
  template: string;
}

export async function queueEmail(tx: Tx, email: OutgoingEmail): Promise<void> {
  await tx.enqueueJob("email", email, { maxAttempts: 8 });
}
