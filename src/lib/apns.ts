import { createPrivateKey, type KeyObject, sign } from "node:crypto";
import { readFileSync } from "node:fs";
import http2 from "node:http2";

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

  /** Sends one notification; resolves with Apple's status (and reason for errors). */
  send(deviceToken: string, topic: string, payload: object, timeoutMs: number): Promise<ApnsResult> {
    return new Promise((resolve, reject) => {
      const session = http2.connect(this.settings.endpoint);
      const timer = setTimeout(() => {
        session.destroy(new Error(`APNs did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      session.on("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      const request = session.request({
        ":method": "POST",
        ":path": `/3/device/${encodeURIComponent(deviceToken)}`,
        authorization: `bearer ${this.bearer(Date.now())}`,
        "apns-topic": topic,
        "apns-push-type": "alert",
        "apns-priority": "10",
        "content-type": "application/json",
      });
      let status = 0;
      let body = "";
      request.on("response", (headers) => (status = Number(headers[":status"])));
      request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      request.on("end", () => {
        clearTimeout(timer);
        session.close();
        let reason: string | undefined;
        try {
          reason = body ? (JSON.parse(body) as { reason?: string }).reason : undefined;
        } catch {
          reason = undefined;
        }
        resolve({ status, reason });
      });
      request.on("error", (error) => {
        clearTimeout(timer);
        session.destroy();
        reject(error);
      });
      request.end(JSON.stringify(payload));
    });
  }
}
