import * as auth from "../routes/auth.js";
import * as serverSettings from "../routes/serverSettings.js";
import * as users from "../routes/users.js";
import type { RouteEntry } from "./mount.js";

/**
 * THE route table: every (method, path) Parley serves under /api/v1, like Zulip's urls.py.
 * Handlers are named after Zulip's view functions.
 */
export const ROUTES: readonly RouteEntry[] = [
  // authentication
  { method: "POST", path: "/fetch_api_key", endpoint: auth.fetchApiKey },
  { method: "POST", path: "/dev_fetch_api_key", endpoint: auth.devFetchApiKey },
  { method: "POST", path: "/users/me/api_key/regenerate", endpoint: auth.regenerateApiKey },

  // server
  { method: "GET", path: "/server_settings", endpoint: serverSettings.getServerSettings },

  // users, roles, deactivation, status, custom profile fields
  { method: "GET", path: "/users/me", endpoint: users.getUserMe },
  // (end users)

  // personal settings
  // (end settings)
];
