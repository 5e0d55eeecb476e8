import { createPrivateKey, type KeyObject, sign } from "node:crypto";
import { readFileSync } from "node:fs";

/**
 * Firebase Cloud Messaging, direct (HTTP v1 API): an OAuth 2 access token from the service
 * account's key (a signed JWT exchanged at its token_uri, kept until shortly before it expires),
 * then one POST per device to /v1/projects/{project}/messages:send.
 */
export interface FcmSettings {
  /** https://fcm.googleapis.com (tests: a local server). */
  endpoint: string;
  /** The service account JSON file Firebase gives. */
  credentialsFile: string;
}

interface ServiceAccount {
  project_id: string;
  client_email: string;
  private_key: string;
  token_uri: string;
}

export class FcmClient {
  private readonly account: ServiceAccount;
  private readonly key: KeyObject;
  private token: { value: string; expiresAtMs: number } | null = null;

  constructor(private readonly settings: FcmSettings) {
    this.account = JSON.parse(readFileSync(settings.credentialsFile, "utf8")) as ServiceAccount;
    this.key = createPrivateKey(this.account.private_key);
  }

  private async accessToken(timeoutMs: number): Promise<string> {
    const now = Date.now();
    if (this.token && now < this.token.expiresAtMs - 60_000) return this.token.value;
    const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const iat = Math.floor(now / 1000);
    const claims = {
      iss: this.account.client_email,
      scope: "https://www.googleapis.com/auth/firebase.messaging",
      aud: this.account.token_uri,
      iat,
      exp: iat + 3600,
    };
    const unsigned = `${b64({ alg: "RS256", typ: "JWT" })}.${b64(claims)}`;
    const assertion = `${unsigned}.${sign("sha256", Buffer.from(unsigned), this.key).toString("base64url")}`;
    const res = await fetch(this.account.token_uri, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) throw new Error(`FCM token exchange failed: ${res.status}`);
    const body = (await res.json()) as { access_token: string; expires_in: number };
    this.token = { value: body.access_token, expiresAtMs: now + body.expires_in * 1000 };
    return body.access_token;
  }

  /** Sends a data message to one device; resolves with FCM's status and error status text. */
  async send(deviceToken: string, data: Record<string, unknown>, priority: "high" | "normal", timeoutMs: number): Promise<{ status: number; error?: string }> {
    const token = await this.accessToken(timeoutMs);
    // FCM data values must be strings.
    const strings = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
    const res = await fetch(`${this.settings.endpoint.replace(/\/+$/, "")}/v1/projects/${encodeURIComponent(this.account.project_id)}/messages:send`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ message: { token: deviceToken, data: strings, android: { priority: priority === "high" ? "HIGH" : "NORMAL" } } }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let error: string | undefined;
    if (!res.ok) {
      try {
        const parsed = JSON.parse(text) as { error?: { status?: string; details?: Array<{ errorCode?: string }> } };
        error = parsed.error?.details?.find((d) => d.errorCode)?.errorCode ?? parsed.error?.status;
      } catch {
        error = text.slice(0, 200);
      }
    }
    return { status: res.status, error };
  }
}
