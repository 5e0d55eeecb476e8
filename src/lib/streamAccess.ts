import type { Stream, User } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { ApiError, badRequest } from "../http/errors.js";
import { isAdmin, isGuest } from "../models/roles.js";
import { groupMembershipStore } from "../store/userGroups.js";

/**
 * THE place that decides what a user may do with a channel (SECURITY.md, "Who may read a
 * message"). Every endpoint, event fan-out, search and file URL that touches a channel asks here.
 * A missing channel and a channel the user may not see give the same error.
 *
 * - metadata (name, description, subscriber count): public channels for non-guests; otherwise
 *   subscribers, administrators, and members of the channel's administer/add-subscribers/subscribe
 *   groups. Web-public channels for everyone in the realm.
 * - content (messages): public channels for non-guests; subscribers; for private channels also
 *   non-guest members of can_subscribe_group / can_add_subscribers_group. Administrators get
 *   metadata, never content, of private channels they are not part of. Protected history
 *   (history_public_to_subscribers = 0) is further limited per message by the caller: only
 *   messages the user received.
 * - post: content access (or, for public channels, being allowed to post without subscribing),
 *   membership of can_send_message_group, and the channel is not archived.
 */
export interface ChannelAccess {
  stream: Stream;
  isSubscribed: boolean;
  canSeeMetadata: boolean;
  canReadContent: boolean;
  canPost: boolean;
  canAdminister: boolean;
  canSubscribeSelf: boolean;
  canAddSubscribers: boolean;
  canRemoveSubscribers: boolean;
}

/** The user's group memberships, computed once per request and reused for every channel. */
export class AccessSubject {
  private groups: Set<number> | null = null;
  private subscribed: Set<number> | null = null;

  constructor(readonly user: User) {}

  async groupIds(q: Executor): Promise<Set<number>> {
    return (this.groups ??= await groupMembershipStore.groupIdsContainingUser(q, this.user.id));
  }

  /** Recipient ids of the channels the user is actively subscribed to. */
  async subscribedRecipientIds(q: Executor): Promise<Set<number>> {
    if (this.subscribed) return this.subscribed;
    const rows = await q
      .selectFrom("subscriptions")
      .select("recipient_id")
      .where("user_id", "=", this.user.id)
      .where("active", "=", 1)
      .execute();
    return (this.subscribed = new Set(rows.map((r) => r.recipient_id)));
  }
}

export async function channelAccess(q: Executor, subject: AccessSubject, stream: Stream): Promise<ChannelAccess> {
  const user = subject.user;
  const groups = await subject.groupIds(q);
  const inGroup = (id: number | null) => id !== null && groups.has(id);
  const isSubscribed = stream.recipient_id !== null && (await subject.subscribedRecipientIds(q)).has(stream.recipient_id);
  const guest = isGuest(user);
  const sameRealm = stream.realm_id === user.realm_id;
  const isPublic = !stream.invite_only;

  const canAdminister = sameRealm && (isAdmin(user) || inGroup(stream.can_administer_channel_group_id));
  const canSubscribeSelf = sameRealm && !stream.is_archived && ((isPublic && !guest) || (!guest && inGroup(stream.can_subscribe_group_id)));
  const canAddSubscribers = sameRealm && !stream.is_archived && (canAdminister || inGroup(stream.can_add_subscribers_group_id));
  const canReadContent =
    sameRealm &&
    (isSubscribed ||
      (isPublic && !guest) ||
      (!guest && (inGroup(stream.can_subscribe_group_id) || inGroup(stream.can_add_subscribers_group_id))));
  const canSeeMetadata = sameRealm && (canReadContent || canAdminister || canAddSubscribers || stream.is_web_public === 1);
  const canPost =
    sameRealm && !stream.is_archived && inGroup(stream.can_send_message_group_id) && (canReadContent || (isPublic && !guest));
  const canRemoveSubscribers = sameRealm && (canAdminister || inGroup(stream.can_remove_subscribers_group_id));
  return {
    stream,
    isSubscribed,
    canSeeMetadata,
    canReadContent,
    canPost,
    canAdminister,
    canSubscribeSelf,
    canAddSubscribers,
    canRemoveSubscribers,
  };
}

export type AccessNeed = "metadata" | "content" | "administer";

function allows(access: ChannelAccess, need: AccessNeed): boolean {
  return need === "metadata" ? access.canSeeMetadata : need === "content" ? access.canReadContent : access.canAdminister;
}

/** The channel with this id if the user may `need` it; Zulip's "Invalid channel ID" otherwise. */
export async function accessStreamById(q: Executor, subject: AccessSubject, streamId: number, need: AccessNeed = "metadata"): Promise<ChannelAccess> {
  const stream = await q
    .selectFrom("streams")
    .selectAll()
    .where("id", "=", streamId)
    .where("realm_id", "=", subject.user.realm_id)
    .executeTakeFirst();
  const access = stream ? await channelAccess(q, subject, stream) : null;
  if (!access || !allows(access, need === "administer" ? "metadata" : need)) throw badRequest("Invalid channel ID");
  if (need === "administer" && !access.canAdminister) throw badRequest("You do not have permission to administer this channel.");
  return access;
}

/** By name (case-insensitive); STREAM_DOES_NOT_EXIST for missing and inaccessible alike. */
export async function accessStreamByName(q: Executor, subject: AccessSubject, name: string, need: AccessNeed = "metadata"): Promise<ChannelAccess> {
  const stream = await q
    .selectFrom("streams")
    .selectAll()
    .where("realm_id", "=", subject.user.realm_id)
    .where((eb) => eb(eb.fn("lower", ["name"]), "=", name.toLowerCase()))
    .executeTakeFirst();
  const access = stream ? await channelAccess(q, subject, stream) : null;
  if (!access || !allows(access, need === "administer" ? "metadata" : need)) {
    throw new ApiError(`Channel '${name}' does not exist`, { code: "STREAM_DOES_NOT_EXIST", data: { stream: name } });
  }
  if (need === "administer" && !access.canAdminister) throw badRequest("You do not have permission to administer this channel.");
  return access;
}
