import type { User } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { directMessageGroupStore } from "./directMessageGroups.js";

/**
 * Who a user restricted by can_access_all_users_group may know (Zulip's get_accessible_user_ids):
 * themselves, the active subscribers of the channels they are subscribed to, the members of their
 * group direct messages, and the users they exchanged direct messages with. Bots are not listed:
 * everyone may access every bot.
 *
 * Access is symmetric, so the same query answers who may access `viewer` (userIdsWhoCanAccessUser).
 * A channel links two users only while both are active: a deactivated user stays known through
 * DMs and group DMs only (Zulip's send_events_for_user_deactivation).
 */
export const userAccessStore = {
  /** `ignoreRecipientId`: a group direct message not to count (one just created, not yet shared). */
  async accessibleUserIds(q: Executor, viewer: User, options: { ignoreRecipientId?: number } = {}): Promise<Set<number>> {
    const ids = new Set<number>([viewer.id]);
    const coSubscribers = await q
      .selectFrom("subscriptions as mine")
      .innerJoin("subscriptions as theirs", "theirs.recipient_id", "mine.recipient_id")
      .select("theirs.user_id")
      .distinct()
      .where("mine.user_id", "=", viewer.id)
      .where("mine.active", "=", 1)
      .where("mine.is_user_active", "=", 1)
      .where("theirs.active", "=", 1)
      .where("theirs.is_user_active", "=", 1)
      .execute();
    for (const row of coSubscribers) ids.add(row.user_id);
    const groups = (await directMessageGroupStore.recipientIdsContaining(q, viewer.realm_id, [viewer.id])).filter((id) => id !== options.ignoreRecipientId);
    for (const members of (await directMessageGroupStore.listByRecipientIds(q, groups)).values()) {
      for (const id of members) ids.add(id);
    }
    const sentTo = await q
      .selectFrom("messages")
      .innerJoin("users", "users.recipient_id", "messages.recipient_id")
      .select("users.id")
      .distinct()
      .where("messages.sender_id", "=", viewer.id)
      .where("messages.realm_id", "=", viewer.realm_id)
      .execute();
    for (const row of sentTo) ids.add(row.id);
    if (viewer.recipient_id !== null) {
      const receivedFrom = await q.selectFrom("messages").select("sender_id").distinct().where("recipient_id", "=", viewer.recipient_id).execute();
      for (const row of receivedFrom) ids.add(row.sender_id);
    }
    return ids;
  },
};
