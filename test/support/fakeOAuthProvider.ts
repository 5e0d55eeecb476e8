import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * An OAuth 2 provider on loopback for sign-in tests (GitHub and GitLab are not reachable from
 * here): the documented authorization-code endpoints, and the provider's REST API answered by
 * the test's `api` function for the account signed in at the provider. The authorization
 * endpoint signs that account in without a page (or answers `access_denied` when `deny` is set);
 * the token endpoint checks the client secret, the code (once), the redirect URI and the PKCE
 * verifier, as the real ones do.
 */

export interface ApiAnswer {
  status: number;
  body?: unknown;
}

export interface FakeOAuthOptions<Account> {
  clientId: string;
  clientSecret: string;
  /** Where the provider lives under its origin ("" or "/gitlab"), and its endpoints under that. */
  prefix: string;
  authorizePath: string;
  tokenPath: string;
  /** The API: the path after the prefix, the account the access token belongs to. Null: 404. */
  api: (path: string, account: Account) => ApiAnswer | null;
  account: Account;
}

interface Grant<Account> {
  redirectUri: string;
  challenge: string | null;
  account: Account;
}

export class FakeOAuthProvider<Account> {
  /** The person signed in at the provider: whoever the next authorization is for. */
  account: Account;
  /** Answer the next authorizations with error=access_denied. */
  deny = false;
  /** The scopes of the last authorization request. */
  lastScope = "";
  /** Every API path asked, in order. */
  readonly apiCalls: string[] = [];
  private server?: http.Server;
  private base = "";
  private readonly codes = new Map<string, Grant<Account>>();
  private readonly tokens = new Map<string, Account>();

  constructor(private readonly options: FakeOAuthOptions<Account>) {
    this.account = options.account;
  }

  /** The provider's base URL (with its prefix). */
  get url(): string {
    return this.base + this.options.prefix;
  }

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        res.writeHead(500).end(String(error));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.base);
    const path = url.pathname.startsWith(this.options.prefix) ? url.pathname.slice(this.options.prefix.length) : null;
    if (path === this.options.authorizePath && req.method === "GET") return this.authorize(url, res);
    if (path === this.options.tokenPath && req.method === "POST") return this.token(req, res);
    const account = this.tokens.get((req.headers.authorization ?? "").replace(/^(Bearer|token) /i, ""));
    if (path === null || !account) return json(res, 401, { message: "Bad credentials" });
    this.apiCalls.push(path);
    const answer = this.options.api(path, account);
    if (!answer) return json(res, 404, { message: "Not Found" });
    return json(res, answer.status, answer.body);
  }

  private authorize(url: URL, res: http.ServerResponse): void {
    const q = url.searchParams;
    const redirectUri = q.get("redirect_uri") ?? "";
    const back = new URL(redirectUri);
    if (q.get("client_id") !== this.options.clientId || q.get("response_type") !== "code") return json(res, 400, { error: "invalid_request" });
    this.lastScope = q.get("scope") ?? "";
    const state = q.get("state");
    if (state !== null) back.searchParams.set("state", state);
    if (this.deny) {
      back.searchParams.set("error", "access_denied");
      back.searchParams.set("error_description", "The user has denied your application access.");
    } else {
      const code = randomBytes(16).toString("hex");
      const challenge = q.get("code_challenge_method") === "S256" ? q.get("code_challenge") : null;
      this.codes.set(code, { redirectUri, challenge, account: structuredClone(this.account) });
      back.searchParams.set("code", code);
    }
    res.writeHead(302, { Location: back.href }).end();
  }

  private async token(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const form = new URLSearchParams(await body(req));
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const [id, secret] = basic
      ? Buffer.from(basic, "base64").toString().split(":").map(decodeURIComponent)
      : [form.get("client_id"), form.get("client_secret")];
    if (id !== this.options.clientId || secret !== this.options.clientSecret) return json(res, 401, { error: "invalid_client" });
    const code = form.get("code") ?? "";
    const grant = this.codes.get(code);
    this.codes.delete(code);
    const verifier = form.get("code_verifier") ?? "";
    const pkceOk = grant?.challenge != null && createHash("sha256").update(verifier).digest("base64url") === grant.challenge;
    if (form.get("grant_type") !== "authorization_code" || !grant || grant.redirectUri !== form.get("redirect_uri") || !pkceOk) {
      return json(res, 400, { error: "invalid_grant" });
    }
    const accessToken = randomBytes(20).toString("hex");
    this.tokens.set(accessToken, grant.account);
    return json(res, 200, { access_token: accessToken, token_type: "bearer", scope: this.lastScope });
  }
}

function json(res: http.ServerResponse, status: number, value: unknown): void {
  if (status === 204 || value === undefined) {
    res.writeHead(status).end();
    return;
  }
  res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(value));
}

function body(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString()));
    req.on("error", reject);
  });
}
