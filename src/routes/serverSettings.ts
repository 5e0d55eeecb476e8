import { endpoint } from "../http/endpoint.js";
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from "../models/version.js";

/** GET /server_settings (and HEAD): what clients read before logging in. No authentication. */
export const getServerSettings = endpoint({
  auth: "none",
  params: {},
  handler: async ({ ctx }) => {
    return {
      zulip_version: ZULIP_VERSION,
      zulip_feature_level: ZULIP_FEATURE_LEVEL,
      zulip_merge_base: ZULIP_MERGE_BASE,
      realm_url: ctx.config.externalUrl,
      realm_uri: ctx.config.externalUrl,
    };
  },
});
