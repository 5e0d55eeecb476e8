import crypto, { type KeyObject } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";
import { afterAll, beforeAll } from "vitest";

/**
 * A real OpenID provider for the tests (oidc-provider) on 127.0.0.1: one confidential client
 * (`parley` / `parley-secret`), accounts with email and name claims, and a login step that needs
 * no HTML form: the test says whom the next sign-in logs in as (`loginAs`; null: the person
 * refuses, access_denied), and the interaction is finished with that account and the consent
 * granted. `rewriteIdToken` lets a test replace the ID token of the token endpoint's answer (a
 * forged or expired one, signed with `sign`).
 */

export interface OidcAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export class TestOidcProvider {
  readonly clientId = "parley";
  readonly clientSecret = "parley-secret";
  readonly kid = "test-key-1";
  issuer = "";
  accounts = new Map<string, OidcAccount>();
  loginAs: string | null = null;
  rewriteIdToken: ((idToken: string) => string) | null = null;
  readonly privateKey: KeyObject;
  private server: http.Server | null = null;

  constructor(private readonly redirectUris: string[]) {
    this.privateKey = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
  }

  async start(): Promise<void> {
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    this.server = server;
    this.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const jwk = { ...this.privateKey.export({ format: "jwk" }), kid: this.kid, use: "sig", alg: "RS256" };
    const accounts = this.accounts;
    const provider = new Provider(this.issuer, {
      clients: [
        {
          client_id: this.clientId,
          client_secret: this.clientSecret,
          redirect_uris: this.redirectUris,
          response_types: ["code"],
          grant_types: ["authorization_code"],
        },
      ],
      jwks: { keys: [jwk] },
      cookies: { keys: ["oidc-test-cookie-key"] },
      ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
      claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      findAccount: (_ctx, id) => {
        const account = accounts.get(id);
        return account ? { accountId: id, claims: () => ({ sub: id, ...account }) } : undefined;
      },
    });
    const callback = provider.callback();
    server.on("request", (req: IncomingMessage, res: ServerResponse) => {
      if (req.url?.startsWith("/interaction/")) {
        void this.interaction(provider, req, res).catch((error: unknown) => {
          res.statusCode = 500;
          res.end(String(error));
        });
        return;
      }
      const rewrite = this.rewriteIdToken;
      if (req.url === "/token" && rewrite) {
        const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
        res.end = ((chunk?: unknown) => {
          const body = JSON.parse(String(chunk)) as { id_token?: string };
          if (body.id_token) body.id_token = rewrite(body.id_token);
          const out = JSON.stringify(body);
          res.setHeader("Content-Length", Buffer.byteLength(out));
          return end(out);
        }) as typeof res.end;
      }
      void callback(req, res);
    });
  }

  private async interaction(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    const accountId = this.loginAs;
    if (accountId === null) {
      await provider.interactionFinished(req, res, { error: "access_denied", error_description: "refused" }, { mergeWithLastSubmission: false });
      return;
    }
    const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope));
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
  }

  /** A compact JWS (RS256) of the payload, with this provider's key unless another is given. */
  sign(payload: Record<string, unknown>, key: KeyObject = this.privateKey): string {
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const input = `${encode({ alg: "RS256", kid: this.kid, typ: "JWT" })}.${encode(payload)}`;
    return `${input}.${crypto.sign("sha256", Buffer.from(input), key).toString("base64url")}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The payload of a compact JWS. */
export function jwtPayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString()) as Record<string, unknown>;
}

/**
 * A provider for the file's tests, started before them; `available` is false (with a note on the
 * console) when it cannot start, and the tests that need it skip.
 */
export function useOidcProvider(redirectUris: string[]): { provider: TestOidcProvider; available: () => boolean } {
  const provider = new TestOidcProvider(redirectUris);
  let started = false;
  beforeAll(async () => {
    try {
      await provider.start();
      started = true;
    } catch (error) {
      console.warn(`OpenID provider (oidc-provider) could not start, its tests are skipped: ${String(error)}`);
    }
  });
  afterAll(() => provider.stop());
  return { provider, available: () => started };
}

/** A browser's cookies for 127.0.0.1 (every port, as browsers do), and its redirects followed by hand. */
export class CookieBrowser {
  private cookies = new Map<string, string>();

  /** @param rewrite maps a URL the server names (its external URL) to where it listens. */
  constructor(private readonly rewrite: (url: string) => string = (url) => url) {}

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  setCookie(name: string, value: string): void {
    this.cookies.set(name, value);
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set("Cookie", this.cookieHeader());
    headers.set("Accept", "text/html");
    const res = await fetch(this.rewrite(url), { ...init, headers, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(";")[0] ?? "";
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1);
      if (value === "" || /expires=Thu, 01 Jan 1970/i.test(line) || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /**
   * Follows redirects from `url` until an answer that is not one, or one to a URL that is not
   * http(s) (zulip://): the last response, its body (every body is read, so that no answer,
   * such as the web app's streamed page, stays open), its URL, and every URL visited.
   * `stopBefore`: a URL it matches is not fetched; it ends the walk (the last answer is the redirect to it).
   */
  async follow(url: string, maxHops = 20, stopBefore?: RegExp): Promise<{ res: Response; html: string; url: string; visited: string[] }> {
    const visited: string[] = [];
    let current = url;
    let last: { res: Response; html: string } | null = null;
    for (let hop = 0; hop < maxHops; hop++) {
      visited.push(current);
      if (last && stopBefore?.test(current)) return { ...last, url: current, visited };
      const res = await this.fetch(current);
      const html = await res.text();
      last = { res, html };
      const location = res.headers.get("location");
      if (res.status < 300 || res.status >= 400 || !location) return { res, html, url: current, visited };
      const next = new URL(location, this.rewrite(current)).href;
      if (!/^https?:/.test(next)) {
        visited.push(next);
        return { res, html, url: next, visited };
      }
      current = next;
    }
    throw new Error(`more than ${maxHops} redirects: ${visited.join(" → ")}`);
  }
}
