import { nowSeconds } from "../util/time.js";
import type { User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../lib/errors.js";
import { accessUserById } from "../lib/access.js";
import { MessageFlag } from "../models/messageFlags.js";
import { mutedUserStore } from "../store/mutedUsers.js";
import { userMessageFlagStore } from "../store/userMessages.js";
import { queuePushRemovals } from "./pushNotifications.js";

/**
 * Muted users (Zulip's zerver/actions/muted_users.py): their messages reach the muter already
 * read, so they notify nothing and count in no unread total; muting marks what they sent so far
 * read too. Every client of the muter learns the new list (muted_users event).
 */
export async function doMuteUser(tx: Tx, user: User, mutedUserId: number): Promise<void> {
  if (mutedUserId === user.id) throw badRequest("Cannot mute self");
  const muted = await accessUserById(tx.q, user, mutedUserId, { allowBots: true, allowDeactivated: true, forAdministration: false });
  if (!(await mutedUserStore.insertIfAbsent(tx.q, user.id, muted.id, nowSeconds()))) throw badRequest("User already muted");
  const unread = await userMessageFlagStore.unreadIds(tx.q, user.id, { senderId: muted.id });
  if (unread.length > 0) {
    await userMessageFlagStore.setFlag(tx.q, user.id, unread, MessageFlag.READ, true);
    await queuePushRemovals(tx, user.id, unread);
    tx.sendEventOnCommit({ type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: unread, all: false }, [user.id]);
  }
  await notifyMutedUsers(tx, user);
}

export async function doUnmuteUser(tx: Tx, user: User, mutedUserId: number): Promise<void> {
  const muted = await accessUserById(tx.q, user, mutedUserId, { allowBots: true, allowDeactivated: true, forAdministration: false });
  if (!(await mutedUserStore.delete(tx.q, user.id, muted.id))) throw badRequest("User is not muted");
  await notifyMutedUsers(tx, user);
}

async function notifyMutedUsers(tx: Tx, user: User): Promise<void> {
  tx.sendEventOnCommit({ type: "muted_users", muted_users: await mutedUserStore.list(tx.q, user.id) }, [user.id]);
}
