import type { User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../lib/errors.js";
import { checkEmojiRequest, getEmojiData, normalizeReactionType } from "../lib/emoji.js";
import { serializeUserSettings, userSettings } from "../models/userSettings.js";
import { userStatusStore, type UserStatusChanges } from "../store/userStatuses.js";
import { userStore } from "../store/users.js";
import { nowSeconds } from "../util/time.js";
import type { UserStatusEvent } from "../events/types.js";

export interface UpdateStatusRequest {
  away?: boolean;
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
}

/** POST /users/me/status (Zulip's update_user_status_backend). */
export async function checkUpdateUserStatus(tx: Tx, user: User, req: UpdateStatusRequest): Promise<void> {
  const { away, status_text } = req;
  const { emoji_name } = req;
  let { emoji_code, reaction_type } = req;
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

/** Zulip's check_emoji_request for a status emoji; a name alone is looked up as for reactions. */
async function checkStatusEmoji(tx: Tx, user: User, name: string, code: string | undefined, type: string | undefined) {
  if (code === undefined) {
    const current = await getEmojiData(tx.q, user.realm_id, name);
    code = current.emoji_code;
    type ??= current.reaction_type;
  }
  const reactionType = normalizeReactionType(type ?? "unicode_emoji");
  await checkEmojiRequest(tx.q, user.realm_id, name, code, reactionType);
  return { emoji_code: code, reaction_type: reactionType };
}

/** Writes only the given parts of the status and tells the realm. `away` is the legacy inverse of presence_enabled. */
async function doUpdateUserStatus(tx: Tx, user: User, req: UpdateStatusRequest): Promise<void> {
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

  const event: UserStatusEvent = { type: "user_status", user_id: user.id };
  if (req.away !== undefined) event.away = req.away;
  Object.assign(event, changes);
  tx.sendEventOnCommit(event, await userStore.listActiveIds(tx.q, user.realm_id));
}
