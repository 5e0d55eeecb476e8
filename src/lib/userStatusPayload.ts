import { type User } from "../db/schema.js";
import { userSettings } from "../models/userSettings.js";
import { type UserStatusRow } from "../store/userStatuses.js";

/** A user's status as clients see it: only the keys that are set (Zulip's format_user_status). */
export function formatUserStatus(row: UserStatusRow | undefined, user: User): Record<string, unknown> {
  if (!row) return {};
  const status: Record<string, unknown> = {};
  if (!userSettings(user).presence_enabled) status.away = true;
  if (row.status_text) status.status_text = row.status_text;
  if (row.emoji_name) {
    status.emoji_name = row.emoji_name;
    status.emoji_code = row.emoji_code;
    status.reaction_type = row.reaction_type;
  }
  return status;
}
