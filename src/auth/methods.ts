import type { AppContext } from "../appContext.js";
import type { Realm } from "../db/schema.js";
import { type AuthMethod, methodConfigured, realmMethodEnabled } from "../lib/authMethods.js";

/**
 * The sign-in code's view of lib/authMethods.ts: which methods this server offers and which the
 * organization has on, by Zulip's names (AUTH_BACKEND_NAME_MAP).
 */
export type { AuthMethod } from "../lib/authMethods.js";

/** Whether this server is configured to offer the method at all. */
export function methodAvailable(ctx: AppContext, method: AuthMethod): boolean {
  return methodConfigured(ctx.config, method);
}

/** Whether people of the organization may sign in with the method (offered, and on for the realm). */
export function methodEnabled(ctx: AppContext, realm: Realm, method: AuthMethod): boolean {
  return realmMethodEnabled(ctx.config, realm, method);
}
