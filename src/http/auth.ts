import type { FastifyRequest } from "fastify";
import type { AppContext } from "../appContext.js";
import type { Realm, User } from "../db/schema.js";
import { apiKeysEqual, isWellFormedApiKey } from "../lib/apiKeys.js";
import { realmStore } from "../store/realms.js";
import { userStore } from "../store/users.js";
import { ApiError, InvalidApiKeyError, RealmDeactivatedError, UnauthorizedError, UserDeactivatedError } from "./errors.js";

/**
 * Authentication for /api/v1: HTTP Basic with the API email as username and the API key as
 * password. The key is compared in constant time; a missing user and a wrong key look alike.
 */
export async function authenticateApiRequest(ctx: AppContext, request: FastifyRequest): Promise<{ user: User; realm: Realm }> {
  const header = request.headers.authorization;
  if (header === undefined || header === "") throw new UnauthorizedError();
  const credentials = parseBasicAuth(header);
  if (credentials === null) {
    throw new ApiError("Invalid authorization header for basic auth", {
      code: "UNAUTHORIZED",
      status: 401,
      headers: { "WWW-Authenticate": 'Basic realm="zulip"' },
    });
  }
  return authenticateByApiKey(ctx, credentials.username, credentials.password);
}

export async function authenticateByApiKey(ctx: AppContext, email: string, apiKey: string): Promise<{ user: User; realm: Realm }> {
  if (!isWellFormedApiKey(apiKey)) {
    throw new ApiError("Malformed API key", { code: "INVALID_API_KEY", status: 401, headers: { "WWW-Authenticate": 'Basic realm="zulip"' } });
  }
  const candidates = await userStore.listByApiEmail(ctx.db.kysely, email);
  // Compare against every candidate so the time taken does not depend on which one matched.
  let user: User | undefined;
  for (const candidate of candidates) {
    if (apiKeysEqual(candidate.api_key, apiKey)) user = candidate;
  }
  if (!user) throw new InvalidApiKeyError();
  if (!user.is_active) throw new UserDeactivatedError();
  const realm = await realmStore.getById(ctx.db.kysely, user.realm_id);
  if (!realm || realm.deactivated) throw new RealmDeactivatedError();
  return { user, realm };
}

function parseBasicAuth(header: string): { username: string; password: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Zulip names the sending client after the User-Agent's first product token. */
export function clientNameFromUserAgent(userAgent: string | undefined): string {
  if (!userAgent) return "API";
  const token = userAgent.trim().split(/[\s/]/)[0];
  return token && /^[\w.-]{1,30}$/.test(token) ? token : "API";
}
