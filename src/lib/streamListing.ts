import type { Stream, User } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { streamStore } from "../store/streams.js";
import { subscriptionStore } from "../store/subscriptions.js";
import { AccessSubject, channelAccess } from "./streamAccess.js";

export interface StreamListOptions {
  include_public: boolean;
  include_web_public: boolean;
  include_subscribed: boolean;
  exclude_archived: boolean;
  include_all: boolean;
  include_owner_subscribed: boolean;
  include_can_access_content: boolean;
}

/**
 * Zulip's get_streams_for_user: the union of the requested sources, each limited by access.
 * `loaded`: the user's AccessSubject and every channel of the realm (archived too, ascending
 * ids), when the caller has them already.
 */
export async function streamsForUser(q: Executor, user: User, opts: StreamListOptions, loaded?: { subject: AccessSubject; realmStreams: readonly Stream[] }) {
  const subject = loaded?.subject ?? new AccessSubject(user);
  const all = loaded
    ? loaded.realmStreams.filter((s) => !(opts.exclude_archived && s.is_archived))
    : await streamStore.listInRealm(q, user.realm_id, { excludeArchived: opts.exclude_archived });
  const accesses = await Promise.all(all.map((s) => channelAccess(q, subject, s)));
  if (opts.include_all) return accesses.filter((a) => a.canSeeMetadata).map((a) => a.stream);
  const ownerSubscribed = new Set<number>();
  if (opts.include_owner_subscribed && user.is_bot && user.bot_owner_id !== null) {
    for (const sub of await subscriptionStore.listActiveForUser(q, user.bot_owner_id)) ownerSubscribed.add(sub.recipient_id);
  }
  const includePublic = opts.include_public && user.role !== 600;
  return accesses
    .filter((a) => {
      const s = a.stream;
      if (opts.include_can_access_content) return a.canReadContent || ownerSubscribed.has(s.recipient_id);
      return (
        (opts.include_subscribed && a.isSubscribed) ||
        (includePublic && !s.invite_only) ||
        (opts.include_web_public && s.is_web_public === 1 && !s.invite_only && s.history_public_to_subscribers === 1 && !s.is_archived) ||
        ownerSubscribed.has(s.recipient_id)
      );
    })
    .map((a) => a.stream);
}
