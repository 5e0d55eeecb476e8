import type { User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import type { ParleyEvent } from "../events/dispatch.js";
import { badRequest } from "../http/errors.js";
import { serializeUserSettings, userSettings } from "../models/userSettings.js";
import { userStatusStore, type UserStatusChanges, type UserStatusRow } from "../store/userStatuses.js";
import { userStore } from "../store/users.js";
import { nowSeconds } from "../util/time.js";

export interface UpdateStatusRequest {
  away?: boolean;
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
}

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

/** POST /users/me/status (Zulip's update_user_status_backend). */
export async function checkUpdateUserStatus(tx: Tx, user: User, req: UpdateStatusRequest): Promise<void> {
  const { away, status_text } = req;
  let { emoji_name, emoji_code, reaction_type } = req;
  if (away === undefined && status_text === undefined && emoji_name === undefined) {
    throw badRequest("Client did not pass any new values.");
  }
  if (emoji_name === "") {
    emoji_code = "";
    reaction_type = "unicode_emoji";
  } else if (emoji_name !== undefined) {
    ({ emoji_code, reaction_type } = await checkStatusEmoji(tx, user, emoji_name, emoji_code, reaction_type));
  } else if (emoji_code !== undefined || reaction_type !== undefined) {
    throw badRequest("Client must pass emoji_name if they pass either emoji_code or reaction_type.");
  }
  await doUpdateUserStatus(tx, user, { away, status_text, emoji_name, emoji_code, reaction_type });
}

/**
 * Zulip's check_emoji_request. Custom and Zulip-extra emoji are checked fully; for Unicode emoji
 * only the code's shape is checked until the emoji data set is available.
 */
async function checkStatusEmoji(tx: Tx, user: User, name: string, code: string | undefined, type: string | undefined) {
  if (code === undefined || type === undefined) {
    // Simple clients pass only the name: look the emoji up by name.
    const realmEmoji = await userStatusStore.findRealmEmoji(tx.q, user.realm_id, { name });
    const byName = realmEmoji
      ? { code: String(realmEmoji.id), type: "realm_emoji" }
      : name === "zulip"
        ? { code: "zulip", type: "zulip_extra_emoji" }
        : undefined;
    if (!byName && code === undefined) throw badRequest(`Emoji '${name}' does not exist`);
    code ??= byName!.code;
    type ??= byName?.type;
  }
  const reactionType = type ?? "unicode_emoji";
  switch (reactionType) {
    case "realm_emoji": {
      const emoji = /^\d+$/.test(code) ? await userStatusStore.findRealmEmoji(tx.q, user.realm_id, { id: Number(code) }) : undefined;
      if (!emoji) throw badRequest("Invalid custom emoji.");
      if (emoji.name !== name) throw badRequest("Invalid custom emoji name.");
      if (emoji.deactivated) throw badRequest("This custom emoji has been deactivated.");
      break;
    }
    case "zulip_extra_emoji":
      if (code !== "zulip") throw badRequest("Invalid emoji code.");
      if (name !== code) throw badRequest("Invalid emoji name.");
      break;
    case "unicode_emoji":
      if (!/^[0-9a-f]{1,6}(-[0-9a-f]{1,6})*$/.test(code)) throw badRequest("Invalid emoji code.");
      break;
    default:
      throw badRequest("Invalid emoji type.");
  }
  return { emoji_code: code, reaction_type: reactionType };
}

/** Writes only the given parts of the status and tells the realm. `away` is the legacy inverse of presence_enabled. */
export async function doUpdateUserStatus(tx: Tx, user: User, req: UpdateStatusRequest): Promise<void> {
  if (req.away !== undefined) {
    const settings = userSettings(user);
    if (settings.presence_enabled === req.away) {
      await userStore.update(tx.q, user.id, { settings: serializeUserSettings({ ...settings, presence_enabled: !req.away }) });
      tx.sendEventOnCommit({ type: "user_settings", op: "update", property: "presence_enabled", value: !req.away }, [user.id]);
    }
  }
  const changes: UserStatusChanges = {};
  if (req.status_text !== undefined) changes.status_text = req.status_text;
  if (req.emoji_name !== undefined) {
    changes.emoji_name = req.emoji_name;
    changes.emoji_code = req.emoji_code;
    changes.reaction_type = req.reaction_type;
  }
  await userStatusStore.upsert(tx.q, user.id, changes, nowSeconds());

  const event: ParleyEvent = { type: "user_status", user_id: user.id };
  if (req.away !== undefined) event.away = req.away;
  Object.assign(event, changes);
  tx.sendEventOnCommit(event, await userStore.listActiveIds(tx.q, user.realm_id));
}
