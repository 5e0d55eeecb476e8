import type { AppContext } from "../appContext.js";
import type { Realm } from "../db/schema.js";
import { EXTERNAL_BACKENDS } from "./backends.js";
import type { ExternalMethod } from "./external.js";

/**
 * The ways of signing in, by Zulip's names (AUTH_BACKEND_NAME_MAP; the keys of
 * realm_authentication_methods): which this server offers (configured) and which an
 * organization has turned on. "Email" is the password form against Parley's own passwords,
 * "LDAP" the same form checked against the directory.
 */
export type AuthMethod = "Email" | "Dev" | "LDAP" | ExternalMethod;

/** Whether this server is configured to offer the method at all. */
export function methodAvailable(ctx: AppContext, method: AuthMethod): boolean {
  if (method === "Email") return true;
  if (method === "Dev") return ctx.config.dev;
  if (method === "LDAP") return ctx.config.auth.ldap !== undefined;
  return EXTERNAL_BACKENDS.some((backend) => backend.method === method && backend.entries(ctx.config.auth).length > 0);
}

/**
 * Whether people of the organization may sign in with the method.
 * TODO(issue 36, helper extauth): the organization's own choice (PATCH /realm authentication_methods).
 */
export function methodEnabled(ctx: AppContext, _realm: Realm, method: AuthMethod): boolean {
  return methodAvailable(ctx, method);
}
