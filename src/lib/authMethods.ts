import type { AuthSettings } from "../auth/settings.js";
import type { Realm } from "../db/schema.js";
import { storedRealmAuthMethods } from "../models/realmSettings.js";

/**
 * The ways of signing in, by Zulip's names (AUTH_BACKEND_NAME_MAP, in its order; the keys of
 * realm_authentication_methods): which this server offers (its configuration) and which an
 * organization has turned on (PATCH /realm authentication_methods). "Email" is the password form
 * against Parley's own passwords, "LDAP" the same form checked against the directory.
 *
 * Here rather than in src/auth/ because POST /register's initial state (src/events/) and the
 * realm settings action need it too; src/auth/methods.ts is the same answer for the sign-in code.
 */
export const AUTH_METHODS = ["Dev", "Email", "LDAP", "GitHub", "GitLab", "Google", "SAML", "OpenID Connect"] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

/** What decides which methods the server offers: development mode and the identity providers file. */
export interface AuthMethodsConfig {
  dev: boolean;
  auth: AuthSettings;
}

/** Whether this server is configured to offer the method at all. */
export function methodConfigured(config: AuthMethodsConfig, method: AuthMethod): boolean {
  switch (method) {
    case "Email":
      return true;
    case "Dev":
      return config.dev;
    case "LDAP":
      return config.auth.ldap !== undefined;
    case "GitHub":
      return config.auth.github !== undefined;
    case "GitLab":
      return config.auth.gitlab !== undefined;
    case "Google":
      return config.auth.google !== undefined;
    case "SAML":
      return config.auth.saml !== undefined;
    case "OpenID Connect":
      return config.auth.oidc.length > 0;
  }
}

/** The methods this server offers, in Zulip's order. */
export function configuredMethods(config: AuthMethodsConfig): AuthMethod[] {
  return AUTH_METHODS.filter((method) => methodConfigured(config, method));
}

/**
 * Zulip's Realm.authentication_methods_dict: every method the server offers → whether the
 * organization has it on. A method is on unless an owner turned it off (Zulip turns on, at an
 * organization's creation, what the server offers then; Parley also turns on what the server
 * offers later, so that configuring a provider is enough to use it).
 */
export function realmMethodsEnabled(config: AuthMethodsConfig, realm: Pick<Realm, "settings">): Record<string, boolean> {
  const stored = storedRealmAuthMethods(realm);
  return Object.fromEntries(configuredMethods(config).map((method) => [method, stored[method] ?? true]));
}

/** Zulip's auth_enabled_helper for one method: offered by the server and on in the organization. */
export function realmMethodEnabled(config: AuthMethodsConfig, realm: Pick<Realm, "settings">, method: AuthMethod): boolean {
  return methodConfigured(config, method) && (storedRealmAuthMethods(realm)[method] ?? true);
}

/**
 * realm_authentication_methods of POST /register and of the realm/update_dict event (Zulip's
 * get_realm_authentication_methods_for_page_params_api without Zulip Cloud's plans: every
 * method is available).
 */
export function realmAuthenticationMethodsForApi(enabled: Record<string, boolean>): Record<string, { enabled: boolean; available: boolean }> {
  return Object.fromEntries(Object.entries(enabled).map(([method, on]) => [method, { enabled: on, available: true }]));
}

/** Zulip's password_auth_enabled: the password form works (Email or LDAP on). */
export function passwordAuthEnabled(enabled: Record<string, boolean>): boolean {
  return enabled.Email === true || enabled.LDAP === true;
}
