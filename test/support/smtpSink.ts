import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll } from "vitest";
import type { Config } from "../../src/config.js";

// mailparser ships no type declarations; this is the part of it we use.
interface ParsedMail {
  subject?: string;
  text?: string;
  html?: string | false;
  from?: { text: string };
  to?: { text: string } | Array<{ text: string }>;
  headers: Map<string, unknown>;
}
const { simpleParser } = createRequire(import.meta.url)("mailparser") as {
  simpleParser: (source: NodeJS.ReadableStream | Buffer | string) => Promise<ParsedMail>;
};

export interface ReceivedEmail {
  /** SMTP envelope */
  mailFrom: string;
  rcptTo: string[];
  parsed: ParsedMail;
}

export interface SmtpSink {
  /** smtp://127.0.0.1:<port> */
  url: string;
  /** Everything received so far, in arrival order. */
  messages: ReceivedEmail[];
  /** Resolves with the first received email matching `predicate` (waits up to `timeoutMs`). */
  waitFor(predicate: (email: ReceivedEmail) => boolean, timeoutMs?: number): Promise<ReceivedEmail>;
  close(): Promise<void>;
}

export interface SmtpSinkOptions {
  /** Refuse every message with this SMTP reply text (as a server that does not accept our mail). */
  refuse?: string;
}

/** A real SMTP server on 127.0.0.1 (random port) that keeps what it receives, parsed. */
export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const messages: ReceivedEmail[] = [];
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onMailFrom(_address, _session, callback) {
      if (options.refuse) {
        const error = Object.assign(new Error(options.refuse), { responseCode: 550 });
        return callback(error);
      }
      callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          messages.push({
            mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            rcptTo: session.envelope.rcptTo.map((r) => r.address),
            parsed,
          });
          for (const wake of waiters) wake();
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;

  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    waitFor(predicate, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(predicate);
          if (!found) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching email within ${timeoutMs} ms (received ${messages.length})`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A sink for the current test file or describe block. Call it before `useTestServer` and pass
 * `sink.overrides` to it: the sink's beforeAll runs first and fills in `smtpUrl`, which the
 * server reads when it starts.
 */
export function useSmtpSink(options: SmtpSinkOptions = {}): { overrides: Partial<Config>; sink: () => SmtpSink } {
  const overrides: Partial<Config> = {};
  let sink: SmtpSink | undefined;
  beforeAll(async () => {
    sink = await startSmtpSink(options);
    overrides.smtpUrl = sink.url;
  });
  afterAll(() => sink?.close());
  return {
    overrides,
    sink: () => {
      if (!sink) throw new Error("the SMTP sink has not started yet");
      return sink;
    },
  };
}
