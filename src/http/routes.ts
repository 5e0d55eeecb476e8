import * as auth from "../routes/auth.js";
import * as customProfileFields from "../routes/customProfileFields.js";
import * as serverSettings from "../routes/serverSettings.js";
import * as settings from "../routes/settings.js";
import * as users from "../routes/users.js";
import * as userStatus from "../routes/userStatus.js";
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
  { method: "DELETE", path: "/users/me", endpoint: users.deactivateOwnUser },
  { method: "POST", path: "/users/me/status", endpoint: userStatus.updateUserStatus },
  { method: "GET", path: "/users", endpoint: users.getMembers },
  { method: "POST", path: "/users", endpoint: users.createUser },
  { method: "GET", path: "/users/:user_id_or_email", endpoint: users.getMember },
  { method: "PATCH", path: "/users/:user_id_or_email", endpoint: users.updateUser },
  { method: "DELETE", path: "/users/:user_id_or_email", endpoint: users.deactivateUser },
  { method: "POST", path: "/users/:user_id_or_email/reactivate", endpoint: users.reactivateUser },
  { method: "GET", path: "/users/:user_id_or_email/status", endpoint: userStatus.getStatus },
  { method: "GET", path: "/realm/profile_fields", endpoint: customProfileFields.listRealmCustomProfileFields },
  { method: "POST", path: "/realm/profile_fields", endpoint: customProfileFields.createRealmCustomProfileField },
  // (end users)

  // personal settings
  { method: "PATCH", path: "/settings", endpoint: settings.updateSettings },
  { method: "PATCH", path: "/settings/display", endpoint: settings.updateSettings },
  { method: "PATCH", path: "/settings/notifications", endpoint: settings.updateSettings },
  // (end settings)
];
