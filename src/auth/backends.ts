import type { ExternalBackend } from "./external.js";
import { githubBackend } from "./github.js";
import { gitlabBackend } from "./gitlab.js";
import { googleBackend } from "./google.js";
import { samlBackend } from "./saml.js";

/** Every identity provider Parley can sign in through, in the order of the login page's buttons. */
export const EXTERNAL_BACKENDS: readonly ExternalBackend[] = [samlBackend, googleBackend, githubBackend, gitlabBackend];
