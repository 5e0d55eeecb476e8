import { externalMethodDicts } from "../auth/entries.js";
import type { Realm } from "../db/schema.js";
import { type AuthMethod, methodConfigured, realmMethodEnabled } from "../lib/authMethods.js";
import { endpoint } from "../http/endpoint.js";
import { pushConfigured } from "../lib/pushDelivery.js";
import { realmIconUrl, realmOfRequest, realmUrl } from "../lib/realms.js";
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from "../models/version.js";
import { escapeHtml } from "../util/html.js";

/**
 * GET /server_settings (and HEAD): what clients read before logging in. No authentication.
 * Realm fields describe the organization served at the request's host (lib/realms.ts
 * realmOfRequest; without a root domain, the one served at the root URL); as in Zulip, they are
 * left out when there is none (the bare root domain of a server with several organizations, or a
 * host that names none), and realm_url is then the server's own URL.
 */
export const getServerSettings = endpoint({
  auth: "none",
  params: {},
  handler: async ({ ctx, request, raw }) => {
    const realm = await realmOfRequest(ctx, raw.request);
    const url = realm ? realmUrl(ctx.config, realm) : ctx.config.externalUrl;
    // Zulip's get_auth_backends_data: offered by the server and on in the organization (the
    // server's offer alone before there is one); methods Parley lacks are false.
    const enabled = (method: AuthMethod) => (realm ? realmMethodEnabled(ctx.config, realm, method) : methodConfigured(ctx.config, method));
    const external = externalMethodDicts(ctx, realm);
    return {
      authentication_methods: {
        password: enabled("Email") || enabled("LDAP"),
        dev: enabled("Dev"),
        email: enabled("Email"),
        ldap: enabled("LDAP"),
        remoteuser: false,
        github: enabled("GitHub"),
        azuread: false,
        gitlab: enabled("GitLab"),
        apple: false,
        google: enabled("Google"),
        saml: enabled("SAML"),
        "openid connect": enabled("OpenID Connect"),
      },
      zulip_version: ZULIP_VERSION,
      zulip_merge_base: ZULIP_MERGE_BASE,
      zulip_feature_level: ZULIP_FEATURE_LEVEL,
      // Zulip's push_notifications_configured(): a bouncer, or APNs/FCM credentials of our own.
      push_notifications_enabled: pushConfigured(ctx),
      // Zulip's check_server_incompatibility: only its test client is incompatible.
      is_incompatible: request.clientName === "ZulipInvalid",
      email_auth_enabled: enabled("Email"),
      // Zulip: false with LDAP on and an email attribute (Parley always reads one, attrs.email), so
      // apps let people type their directory username.
      require_email_format_usernames: !enabled("LDAP"),
      external_authentication_methods: external.map(({ method: _method, ...dict }) => dict),
      realm_url: url,
      realm_uri: url,
      ...(realm ? realmFields(realm) : {}),
    };
  },
});

function realmFields(realm: Realm) {
  return {
    realm_name: realm.name,
    realm_icon: realmIconUrl(realm),
    realm_description: realm.description === "" ? "" : `<p>${escapeHtml(realm.description)}</p>`,
    // Parley does not serve web-public channels to visitors without an account yet.
    realm_web_public_access_enabled: false,
  };
}
