import { generateKeyPairSync } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

/**
 * An OpenID provider standing in for Google (https://accounts.google.com) in sign-in tests:
 * oidc-provider on loopback, with one client and whoever `account` says is signed in. Its login
 * and consent pages are replaced by an interaction that signs `account` in at once (or answers
 * `access_denied` when `deny` is set); the grant of openid, email and profile is taken as given.
 * The ID token carries the email and profile claims, as Google's does.
 */

export interface GoogleAccount {
  sub: string;
  email: string;
  email_verified: boolean;
  name?: string;
  given_name?: string;
  family_name?: string;
}

export class GoogleIssuer {
  account: GoogleAccount;
  deny = false;
  private server?: http.Server;
  issuer = "";

  constructor(
    readonly client: { id: string; secret: string; redirectUri: string },
    account: GoogleAccount,
  ) {
    this.account = account;
  }

  async start(): Promise<void> {
    this.server = http.createServer();
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.issuer = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    const provider = new Provider(this.issuer, {
      clients: [
        {
          client_id: this.client.id,
          client_secret: this.client.secret,
          redirect_uris: [this.client.redirectUri],
          response_types: ["code"],
          grant_types: ["authorization_code"],
        },
      ],
      claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "given_name", "family_name"] },
      conformIdTokenClaims: false,
      cookies: { keys: ["google-issuer-test-key"] },
      jwks: { keys: [{ ...generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" }), kid: "test", use: "sig", alg: "RS256" }] },
      ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ ...this.account, sub }) }),
      loadExistingGrant: async (ctx) => {
        const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
        grant.addOIDCScope("openid email profile");
        await grant.save();
        return grant;
      },
    });
    const callback = provider.callback();
    this.server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
      if (!(req.url ?? "").startsWith("/interaction/")) {
        void callback(req, res);
        return;
      }
      const result = this.deny ? { error: "access_denied", error_description: "The user denied the request." } : { login: { accountId: this.account.sub } };
      provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false }).catch((error: unknown) => {
        res.writeHead(500).end(String(error));
      });
    });
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
