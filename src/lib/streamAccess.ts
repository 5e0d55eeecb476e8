import type { Realm, Stream, User } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { ApiError, badRequest, InvalidChannelIdError, MissingAuthenticationError } from "./errors.js";
import { webPublicStreamsEnabled } from "./groupSettings.js";
import { isAdmin, isGuest } from "../models/roles.js";
import { settingGroupStore, streamStore, subscriptionStore } from "../store/streams.js";
import { groupMembershipStore } from "../store/userGroups.js";
import { hasRealmPermission } from "./realmPermissions.js";
import { userStore } from "../store/users.js";

/**
 * THE place that decides what a user may do with a channel (SECURITY.md, "Who may read a
 * message"), following Zulip 10.2's zerver/lib/streams.py. Every endpoint, event fan-out, search
 * and file URL that touches a channel asks here. A missing channel and a channel the user may not
 * see give the same error.
 *
 * - content (messages; user_has_content_access): web-public channels for everyone in the realm;
 *   subscribers; non-guests for public channels and, for private ones, members of
 *   can_subscribe_group / can_add_subscribers_group. Protected history
 *   (history_public_to_subscribers = 0) is further limited per message by the caller.
 * - metadata (name, description, subscribers; user_has_metadata_access): content access, or a
 *   non-guest who is an administrator or in can_administer_channel_group. Administrators never
 *   get content of private channels they are not part of.
 * - administer: administrators and non-guest members of can_administer_channel_group.
 * - post (access_stream_for_send_message): in can_send_message_group, not archived, and the
 *   channel is web-public, public (non-guests), subscribed, or has shared history and the user is
 *   in a group granting content access.
 * Guests never hold the permissions whose group settings refuse role:everyone.
 *
 * Visitors (a request without credentials; Zulip's spectators) are the last case below: they read
 * the web-public channels of an organization that allows spectators, and nothing else.
 */
export interface ChannelAccess {
  stream: Stream;
  isSubscribed: boolean;
  canSeeMetadata: boolean;
  canReadContent: boolean;
  canPost: boolean;
  canAdminister: boolean;
  /** Subscribe oneself (archived channels too, Zulip 10.0 feature level 362). */
  canSubscribeSelf: boolean;
  /** Channel-level right to subscribe others (see canSubscribeOthers for the realm-level one). */
  canAddSubscribers: boolean;
  canRemoveSubscribers: boolean;
}

/**
 * The user's group memberships, computed once per request and reused for every channel. The
 * pending lookups are cached (not only their results), so that checking many channels at once
 * (Promise.all) still runs each query once.
 */
export class AccessSubject {
  private groups: Promise<Set<number>> | null = null;
  private subscribed: Promise<Set<number>> | null = null;

  constructor(readonly user: User) {}

  groupIds(q: Executor): Promise<Set<number>> {
    return (this.groups ??= groupMembershipStore.groupIdsContainingUser(q, this.user.id));
  }

  /** Recipient ids of the channels the user is actively subscribed to. */
  subscribedRecipientIds(q: Executor): Promise<Set<number>> {
    return (this.subscribed ??= subscriptionStore.activeRecipientIds(q, this.user.id));
  }

  /**
   * Loads both group memberships and subscriptions in one statement, for requests that will ask
   * about both (reads over many channels: narrows, POST /register). Does nothing once either is loaded.
   */
  async preload(q: Executor): Promise<void> {
    if (this.groups || this.subscribed) return;
    const { groupIds, subscribedRecipientIds } = await groupMembershipStore.groupIdsAndSubscriptions(q, this.user.id);
    this.groups ??= Promise.resolve(groupIds);
    this.subscribed ??= Promise.resolve(subscribedRecipientIds);
  }

  /** Forget cached subscriptions after this request changed them. */
  forgetSubscriptions(): void {
    this.subscribed = null;
  }
}

export async function channelAccess(q: Executor, subject: AccessSubject, stream: Stream): Promise<ChannelAccess> {
  const user = subject.user;
  const sameRealm = stream.realm_id === user.realm_id;
  const groups = await subject.groupIds(q);
  const guest = isGuest(user);
  // Guests can never hold these permissions (allow_everyone_group=False in Zulip).
  const inGroup = (id: number | null) => sameRealm && !guest && id !== null && groups.has(id);
  const isSubscribed = sameRealm && stream.recipient_id !== null && (await subject.subscribedRecipientIds(q)).has(stream.recipient_id);
  const isPublic = !stream.invite_only;
  const webPublic = sameRealm && stream.is_web_public === 1;
  const inContentGroups = inGroup(stream.can_subscribe_group_id) || inGroup(stream.can_add_subscribers_group_id);

  const canReadContent = webPublic || isSubscribed || (sameRealm && !guest && (isPublic || inContentGroups));
  const canAdminister = sameRealm && (isAdmin(user) || inGroup(stream.can_administer_channel_group_id));
  const canSeeMetadata = canReadContent || canAdminister;
  const canPost =
    sameRealm &&
    !stream.is_archived &&
    groups.has(stream.can_send_message_group_id ?? -1) &&
    (webPublic || (isPublic && !guest) || isSubscribed || (stream.history_public_to_subscribers === 1 && inContentGroups));
  return {
    stream,
    isSubscribed,
    canSeeMetadata,
    canReadContent,
    canPost,
    canAdminister,
    canSubscribeSelf: !guest && canReadContent,
    canAddSubscribers: !guest && canReadContent && (canAdminister || inGroup(stream.can_add_subscribers_group_id)),
    canRemoveSubscribers:
      (sameRealm && isAdmin(user)) || inGroup(stream.can_administer_channel_group_id) || (canSeeMetadata && inGroup(stream.can_remove_subscribers_group_id)),
  };
}

/** What internal senders (the Notification Bot) hold: every right, since internal sends skip checks. */
export function internalChannelAccess(stream: Stream): ChannelAccess {
  return {
    stream,
    isSubscribed: false,
    canSeeMetadata: true,
    canReadContent: true,
    canPost: true,
    canAdminister: false,
    canSubscribeSelf: false,
    canAddSubscribers: false,
    canRemoveSubscribers: false,
  };
}

export { hasRealmPermission };

/**
 * Subscribing other users (Zulip's get_streams_to_which_user_cannot_add_subscribers): needs
 * content access, and the realm's can_add_subscribers_group or the channel-level right.
 */
export async function canSubscribeOthers(q: Executor, subject: AccessSubject, realm: Realm, access: ChannelAccess): Promise<boolean> {
  if (isGuest(subject.user) || !access.canReadContent) return false;
  return access.canAddSubscribers || (await hasRealmPermission(q, subject, realm, "can_add_subscribers_group"));
}

export type AccessNeed = "metadata" | "content" | "administer";

export interface AccessOptions {
  /** Refuse archived channels like missing ones (Zulip's require_active_channel); administration never does. */
  requireActive?: boolean;
}

function allows(access: ChannelAccess, need: AccessNeed): boolean {
  return need === "content" ? access.canReadContent : access.canSeeMetadata;
}

/**
 * The channel with this id if the user may `need` it; Zulip's "Invalid channel ID" otherwise.
 * For "administer" (check_stream_access_for_delete_or_update_requiring_metadata_access), a user
 * who can read the channel learns that they may not administer it.
 */
export async function accessStreamById(
  q: Executor,
  subject: AccessSubject,
  streamId: number,
  need: AccessNeed = "metadata",
  opts: AccessOptions = {},
): Promise<ChannelAccess> {
  const stream = await streamStore.getById(q, subject.user.realm_id, streamId);
  const access = stream ? await channelAccess(q, subject, stream) : null;
  const refuseArchived = opts.requireActive === true && need !== "administer";
  if (!access || (access.stream.is_archived && refuseArchived)) throw new InvalidChannelIdError();
  if (need === "administer") {
    if (access.canAdminister) return access;
    if (access.canReadContent) throw badRequest("You do not have permission to administer this channel.");
    throw new InvalidChannelIdError();
  }
  if (!allows(access, need)) throw new InvalidChannelIdError();
  return access;
}

/**
 * By name (case-insensitive). Missing and inaccessible look alike: STREAM_DOES_NOT_EXIST by
 * default (message sending), or Zulip's access_stream_by_name text "Invalid channel name '…'".
 */
export async function accessStreamByName(
  q: Executor,
  subject: AccessSubject,
  name: string,
  need: AccessNeed = "metadata",
  opts: AccessOptions & { invalidNameError?: boolean } = {},
): Promise<ChannelAccess> {
  const stream = await streamStore.getByName(q, subject.user.realm_id, name);
  const access = stream ? await channelAccess(q, subject, stream) : null;
  const visible = access !== null && !(access.stream.is_archived && opts.requireActive) && allows(access, need === "administer" ? "metadata" : need);
  if (!visible) {
    if (opts.invalidNameError) throw badRequest(`Invalid channel name '${name}'`);
    throw new ApiError(`Channel '${name}' does not exist`, { code: "STREAM_DOES_NOT_EXIST", data: { stream: name } });
  }
  if (need === "administer" && !access.canAdminister) throw badRequest("You do not have permission to administer this channel.");
  return access;
}

/**
 * Who may see each channel's metadata and subscribers (Zulip's
 * bulk_can_access_stream_metadata_user_ids): the audience of channel and peer events.
 * Web-public: every active user; public: active non-guests and subscribed guests; private:
 * subscribers, administrators, and non-guest members of the groups granting metadata access.
 */
export async function metadataAudience(q: Executor, realmId: number, streams: readonly Stream[]): Promise<Map<number, Set<number>>> {
  const users = await userStore.listActiveRoles(q, realmId);
  const all = users.map((u) => u.id);
  const nonGuests = new Set(users.filter((u) => !isGuest(u)).map((u) => u.id));
  const admins = users.filter((u) => isAdmin(u)).map((u) => u.id);
  const subscribers = await subscriptionStore.subscriberIds(
    q,
    streams.map((s) => s.recipient_id).filter((id): id is number => id !== null),
  );
  const privateStreams = streams.filter((s) => s.invite_only && !s.is_web_public);
  const groupIds = privateStreams.flatMap((s) => [s.can_administer_channel_group_id, s.can_add_subscribers_group_id, s.can_subscribe_group_id]);
  const members = await settingGroupStore.recursiveMemberIds(
    q,
    groupIds.filter((id): id is number => id !== null),
  );
  const result = new Map<number, Set<number>>();
  for (const stream of streams) {
    const subs = (stream.recipient_id !== null && subscribers.get(stream.recipient_id)) || [];
    if (stream.is_web_public) result.set(stream.id, new Set(all));
    else if (!stream.invite_only) result.set(stream.id, new Set([...nonGuests, ...subs]));
    else {
      const viaGroups = [stream.can_administer_channel_group_id, stream.can_add_subscribers_group_id, stream.can_subscribe_group_id]
        .flatMap((id) => [...(id !== null ? (members.get(id) ?? []) : [])])
        .filter((id) => nonGuests.has(id));
      result.set(stream.id, new Set([...subs, ...admins, ...viaGroups]));
    }
  }
  return result;
}

/**
 * Whether a visitor of organization `realmId` may read the channel (Zulip's
 * get_web_public_streams_queryset): web-public, and, as Zulip checks to be safe, public with shared
 * history; never archived.
 */
export function visitorCanRead(realmId: number, stream: Stream): boolean {
  return (
    stream.realm_id === realmId &&
    stream.is_web_public === 1 &&
    stream.invite_only === 0 &&
    stream.history_public_to_subscribers === 1 &&
    stream.is_archived === 0
  );
}

/** A visitor's access to a channel: reading (content and metadata) web-public channels, no other right. */
export function visitorChannelAccess(realmId: number, stream: Stream): ChannelAccess {
  const readable = visitorCanRead(realmId, stream);
  return {
    stream,
    isSubscribed: false,
    canSeeMetadata: readable,
    canReadContent: readable,
    canPost: false,
    canAdminister: false,
    canSubscribeSelf: false,
    canAddSubscribers: false,
    canRemoveSubscribers: false,
  };
}

/** Zulip's access_web_public_stream: a channel a visitor may read, else "Invalid channel ID". */
export async function accessStreamAsVisitor(q: Executor, realmId: number, streamId: number): Promise<Stream> {
  const stream = await streamStore.getById(q, realmId, streamId);
  if (!stream || !visitorCanRead(realmId, stream)) throw new InvalidChannelIdError();
  return stream;
}

/** The channels a visitor of `realm` may read, ascending ids. */
export async function visitorChannels(q: Executor, realm: Realm): Promise<Stream[]> {
  return (await streamStore.listInRealm(q, realm.id, { excludeArchived: true })).filter((s) => visitorCanRead(realm.id, s));
}

/**
 * Zulip's allow_web_public_streams_access: visitors are let in only when the organization enables
 * spectator access (enable_spectator_access) and has a channel they may read; otherwise Zulip's
 * MissingAuthenticationError (401). A deactivated organization lets no visitor in.
 */
export async function checkVisitorsAllowed(q: Executor, realm: Realm): Promise<void> {
  if (!realmLetsVisitorsIn(realm)) throw new MissingAuthenticationError();
  if ((await visitorChannels(q, realm)).length === 0) throw new MissingAuthenticationError();
}

/** The organization's own switch for visitors: active, with enable_spectator_access on. */
export function realmLetsVisitorsIn(realm: Realm): boolean {
  return !realm.deactivated && webPublicStreamsEnabled(realm);
}
