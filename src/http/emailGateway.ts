import type { AddressInfo } from "node:net";
import type { ParsedMail } from "mailparser";
import type { SMTPServer, SMTPServerAddress, SMTPServerDataStream, SMTPServerSession } from "smtp-server";
import { createRequire } from "node:module";
import { type AppContext, transaction } from "../appContext.js";
import { EmailGatewayRefusal, type IncomingMail, processChannelMail, resolveChannelMailTarget } from "../actions/channelEmailAddresses.js";
import { ApiError } from "../lib/errors.js";

/**
 * The incoming email gateway (Zulip's email mirror): an SMTP listener for mail to channel
 * addresses (`<name>.<token>@<domain>`). Recipients are checked at RCPT TO (unknown addresses
 * are refused with 550); each accepted mail is posted in the channel (actions/
 * channelEmailAddresses.ts). It takes mail from anyone, as a mail exchanger does: the token in
 * the address is the secret. No AUTH, no STARTTLS (put a TLS-terminating MTA in front for that).
 */

export interface EmailGateway {
  port: number;
  close(): Promise<void>;
}

/** At most this many recipients per mail, and connections at once. */
const MAX_RECIPIENTS = 10;
const MAX_CLIENTS = 50;
/** Mail accepted per organization (Zulip's RATE_LIMITING_MIRROR_REALM_RULES, first rule). */
const MIRROR_RATE_LIMIT = { max: 50, windowSeconds: 60 };

function smtpError(message: string, responseCode: number): Error {
  return Object.assign(new Error(message), { responseCode });
}

/** An address as Python's email package writes a From header: the name quoted only when it must be. */
function formatAddress(a: { name?: string; address?: string }): string {
  if (!a.name) return a.address ?? "";
  const name = /[()<>@,;:\\".[\]]/.test(a.name) ? `"${a.name.replace(/["\\]/g, "\\$&")}"` : a.name;
  return `${name} <${a.address ?? ""}>`;
}

function toIncoming(parsed: ParsedMail): IncomingMail {
  return {
    subject: parsed.subject ?? "",
    from: (parsed.from?.value ?? []).map(formatAddress).join(", "),
    text: parsed.text,
    html: typeof parsed.html === "string" ? parsed.html : undefined,
    attachments: parsed.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })),
  };
}

export async function startEmailGateway(ctx: AppContext, settings: { port: number; host: string; domain: string }): Promise<EmailGateway> {
  // Loaded only when the gateway is configured.
  const require = createRequire(import.meta.url);
  const { SMTPServer: Server } = require("smtp-server") as typeof import("smtp-server");
  const { simpleParser } = require("mailparser") as typeof import("mailparser");
  // Mail is at most the largest upload, base64-encoded, and a little text.
  const maxSize = Math.ceil((ctx.config.uploads.maxFileSizeMib * 1024 * 1024 * 4) / 3) + 1024 * 1024;
  const log = ctx.log.child({ component: "email-gateway" });

  const server: SMTPServer = new Server({
    name: settings.domain,
    banner: "Parley email gateway",
    disabledCommands: ["AUTH", "STARTTLS"],
    authOptional: true,
    size: maxSize,
    maxClients: MAX_CLIENTS,
    logger: false,
    onRcptTo(address: SMTPServerAddress, session: SMTPServerSession, callback: (err?: Error | null) => void) {
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) return callback(smtpError("Too many recipients", 452));
      transaction(ctx, (tx) => resolveChannelMailTarget(tx, address.address, settings.domain))
        // Zulip's rate_limit_mirror_by_realm: channel addresses take mail from automated systems.
        .then((target) => ctx.rateLimiter.hit(`email_mirror:${target.realm.id}`, MIRROR_RATE_LIMIT))
        .then(
          (limit) => {
            if (limit.retryAfter > 0) return callback(smtpError("Too many emails to this organization, try again later", 451));
            callback();
          },
          (error: unknown) => {
            if (error instanceof EmailGatewayRefusal) return callback(smtpError(error.message, error.responseCode));
            log.error({ err: error }, "checking an email gateway recipient failed");
            callback(smtpError("Temporary failure, try again later", 451));
          },
        );
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback: (err?: Error | null) => void) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        if (stream.sizeExceeded) return callback(smtpError("Message too large", 552));
        void deliver(Buffer.concat(chunks), session).then(
          () => callback(),
          (error: Error) => callback(error),
        );
      });
    },
  });

  async function deliver(raw: Buffer, session: SMTPServerSession): Promise<void> {
    const mail = toIncoming(await simpleParser(raw));
    let failure: Error | undefined;
    for (const { address } of session.envelope.rcptTo) {
      try {
        const messageId = await processChannelMail(ctx, address, settings.domain, mail);
        log.info({ messageId }, "posted an email to a channel");
      } catch (error) {
        if (error instanceof EmailGatewayRefusal) failure = smtpError(error.message, error.responseCode);
        else if (error instanceof ApiError) failure = smtpError(error.message, 550);
        else {
          log.error({ err: error }, "posting an email failed");
          failure = smtpError("Temporary failure, try again later", 451);
        }
      }
    }
    if (failure && session.envelope.rcptTo.length === 1) throw failure;
  }

  server.on("error", (error) => log.error({ err: error }, "email gateway error"));
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(settings.port, settings.host, () => {
      server.server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
