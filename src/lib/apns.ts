import { createPrivateKey, type KeyObject, sign } from "node:crypto";
import { readFileSync } from "node:fs";
import type http2 from "node:http2";
import { lazyRequire } from "../util/lazy.js";

/** node:http2, loaded by the first notification: with TLS under it, memory an idle server need not hold. */
const loadHttp2 = lazyRequire<typeof http2>("node:http2");

/**
 * Apple Push Notification service, direct (token-based authentication: an ES256 JWT made from the
 * team's .p8 key, renewed every 50 minutes), over HTTP/2 as Apple requires.
 */
export interface ApnsSettings {
  /** https://api.push.apple.com (or the sandbox; tests: a local h2c server). */
  endpoint: string;
  keyId: string;
  teamId: string;
  keyFile: string;
}

export interface ApnsResult {
  status: number;
  reason?: string;
}

export class ApnsClient {
  private readonly key: KeyObject;
  private token: { value: string; madeAt: number } | null = null;

  constructor(private readonly settings: ApnsSettings) {
    this.key = createPrivateKey(readFileSync(settings.keyFile, "utf8"));
  }

  private bearer(nowMs: number): string {
    if (this.token && nowMs - this.token.madeAt < 50 * 60_000) return this.token.value;
    const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const unsigned = `${b64({ alg: "ES256", kid: this.settings.keyId })}.${b64({ iss: this.settings.teamId, iat: Math.floor(nowMs / 1000) })}`;
    const signature = sign("sha256", Buffer.from(unsigned), { key: this.key, dsaEncoding: "ieee-p1363" }).toString("base64url");
    this.token = { value: `${unsigned}.${signature}`, madeAt: nowMs };
    return this.token.value;
  }

  /**
   * The HTTP/2 connection, opened on first use and kept: Apple asks providers to reuse one
   * connection for many notifications rather than opening one each. A connection that fails,
   * closes or is told to go away is replaced on the next send.
   */
  private session: http2.ClientHttp2Session | null = null;

  private connection(): http2.ClientHttp2Session {
    if (this.session && !this.session.closed && !this.session.destroyed) return this.session;
    const session = loadHttp2().connect(this.settings.endpoint);
    const forget = () => {
      if (this.session === session) this.session = null;
    };
    session.on("error", forget);
    session.on("close", forget);
    session.on("goaway", forget);
    session.unref(); // an idle connection does not keep the process alive
    this.session = session;
    return session;
  }

  /** Sends one notification; resolves with Apple's status (and reason for errors). */
  send(deviceToken: string, topic: string, payload: object, timeoutMs: number): Promise<ApnsResult> {
    return new Promise((resolve, reject) => {
      let request: http2.ClientHttp2Stream;
      try {
        request = this.connection().request({
          ":method": "POST",
          ":path": `/3/device/${encodeURIComponent(deviceToken)}`,
          authorization: `bearer ${this.bearer(Date.now())}`,
          "apns-topic": topic,
          "apns-push-type": "alert",
          "apns-priority": "10",
          "content-type": "application/json",
        });
      } catch (error) {
        this.session = null;
        reject(error);
        return;
      }
      let settled = false;
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error);
      };
      const timer = setTimeout(() => {
        fail(new Error(`APNs did not answer within ${timeoutMs} ms`));
        request.close(loadHttp2().constants.NGHTTP2_CANCEL);
      }, timeoutMs);
      let status = 0;
      let body = "";
      request.on("response", (headers) => (status = Number(headers[":status"])));
      request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      request.on("end", () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        let reason: string | undefined;
        try {
          reason = body ? (JSON.parse(body) as { reason?: string }).reason : undefined;
        } catch {
          reason = undefined;
        }
        resolve({ status, reason });
      });
      request.on("error", fail);
      request.on("close", () => fail(new Error("APNs closed the stream without an answer")));
      request.end(JSON.stringify(payload));
    });
  }

  /** Closes the kept connection (tests; a stopping process just exits). */
  close(): void {
    this.session?.close();
    this.session = null;
  }
}
