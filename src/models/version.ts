/**
 * The Zulip server version and API feature level we implement (the reference OpenAPI's).
 * /server_settings and /register report exactly these.
 */
export const ZULIP_VERSION = "10.2";
export const ZULIP_FEATURE_LEVEL = 372;
export const ZULIP_MERGE_BASE = "10.2";
export const PARLEY_VERSION = "0.1.0";
/** When this process started (Zulip's SERVER_GENERATION, in /register and restart events). */
export const SERVER_GENERATION = Math.floor(Date.now() / 1000);
