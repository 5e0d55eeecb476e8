import type { AppContext } from "../appContext.js";
import type { Realm } from "../db/schema.js";
import { methodConfigured, realmMethodEnabled } from "../lib/authMethods.js";
import { EXTERNAL_BACKENDS } from "./backends.js";
import { EXTERNAL_METHOD_ORDER, type ExternalEntry, type ExternalMethod } from "./external.js";

/** One entry of server_settings' external_authentication_methods (Zulip's ExternalAuthMethodDictT). */
export interface ExternalMethodDict {
  name: string;
  display_name: string;
  display_icon: string | null;
  login_url: string;
  signup_url: string;
}

/**
 * Zulip's get_external_method_dicts: the entries of every provider the server offers and the
 * organization has on (every provider the server offers when there is no organization yet), in
 * Zulip's order; a provider module's own entries keep their order (SAML IdPs, OIDC providers).
 */
export function externalMethodDicts(ctx: AppContext, realm: Realm | undefined): Array<ExternalMethodDict & { method: ExternalMethod }> {
  const on = (method: ExternalMethod) => (realm ? realmMethodEnabled(ctx.config, realm, method) : methodConfigured(ctx.config, method));
  const backends = [...EXTERNAL_BACKENDS].sort((a, b) => EXTERNAL_METHOD_ORDER.indexOf(a.method) - EXTERNAL_METHOD_ORDER.indexOf(b.method));
  return backends
    .filter((backend) => on(backend.method))
    .flatMap((backend) => backend.entries(ctx.config.auth).map((entry) => methodDict(backend.method, entry)));
}

function methodDict(method: ExternalMethod, entry: ExternalEntry): ExternalMethodDict & { method: ExternalMethod } {
  return {
    method,
    name: entry.name,
    display_name: entry.display_name,
    display_icon: entry.display_icon,
    login_url: `/accounts/login/social/${entry.path}`,
    signup_url: `/accounts/register/social/${entry.path}`,
  };
}
