import type { ExternalBackend } from "./external.js";
import { oidcBackend } from "./oidc.js";

/** Every identity provider Parley can sign in through (the login page's order is EXTERNAL_METHOD_ORDER). */
export const EXTERNAL_BACKENDS: readonly ExternalBackend[] = [oidcBackend];
