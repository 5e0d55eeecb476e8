import type { ExternalBackend } from "./external.js";
import { githubBackend } from "./github.js";
import { gitlabBackend } from "./gitlab.js";
import { googleBackend } from "./google.js";
import { oidcBackend } from "./oidc.js";
import { samlBackend } from "./saml.js";

/** Every identity provider Parley can sign in through (the login page's order is EXTERNAL_METHOD_ORDER). */
export const EXTERNAL_BACKENDS: readonly ExternalBackend[] = [samlBackend, googleBackend, githubBackend, oidcBackend, gitlabBackend];
