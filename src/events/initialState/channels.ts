import type { Executor } from "../../db/tx.js";
import { isAdmin } from "../../models/roles.js";
import { channelAccess } from "../../lib/streamAccess.js";
import { streamsForUser } from "../../lib/streamListing.js";
import { buildStreamPayload, buildSubscriptionPayload, loadStreamPayloadContext } from "../../lib/streamPayload.js";
import { subscriptionStore } from "../../store/subscriptions.js";
import { type SectionRequest, wants } from "./request.js";
import { visitorCanRead } from "../../lib/streamAccess.js";
import { STREAM_ASSIGNMENT_COLORS } from "../../contract/streamColors.js";

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Channel sections: subscription (subscriptions, unsubscribed, never_subscribed; Zulip's
 * gather_subscriptions_helper) and stream (every channel the user can list; Zulip's do_get_streams
 * with include_web_public, and include_all for administrators). Archived channels only for clients
 * with the archived_channels capability.
 */
export async function fetchChannelState(q: Executor, req: SectionRequest): Promise<Record<string, unknown>> {
  const { user, realm, client } = req;
  const state: Record<string, unknown> = {};
  const withArchived = client.capabilities.archived_channels;
  const wantSubs = wants(req, "subscription");
  const wantStreams = wants(req, "stream");
  if (!wantSubs && !wantStreams) return state;

  if (req.visitor) return visitorChannelState(q, req);
  const realmStreams = await req.reads.realmStreams();
  const all = realmStreams.filter((s) => withArchived || !s.is_archived);
  const payloadCtx = await loadStreamPayloadContext(q, realm.id, all, { systemGroups: await req.reads.systemGroups() });
  const subject = req.reads.subject;
  await subject.preload(q);

  if (wantSubs) {
    const rows = await req.reads.channelSubscriptions();
    const subByRecipient = new Map(rows.map((r) => [r.recipient_id, r]));
    const includeSubscribers = req.includeSubscribers !== false;
    const subscribers = includeSubscribers
      ? await subscriptionStore.subscriberIds(
          q,
          all.map((s) => s.recipient_id),
        )
      : null;
    const subscriptions = [];
    const unsubscribed = [];
    const neverSubscribed = [];
    for (const stream of all) {
      const sub = subByRecipient.get(stream.recipient_id);
      const access = await channelAccess(q, subject, stream);
      const members = subscribers ? (subscribers.get(stream.recipient_id) ?? []) : undefined;
      if (sub?.active) {
        subscriptions.push(buildSubscriptionPayload(stream, sub, payloadCtx, members));
      } else if (!access.canSeeMetadata) {
        continue;
      } else if (sub) {
        unsubscribed.push(buildSubscriptionPayload(stream, sub, payloadCtx, members));
      } else {
        neverSubscribed.push({ ...buildStreamPayload(stream, payloadCtx), ...(members ? { subscribers: members } : {}) });
      }
    }
    state.subscriptions = subscriptions.sort(byName);
    state.unsubscribed = unsubscribed.sort(byName);
    state.never_subscribed = neverSubscribed.sort(byName);
  }
  if (wantStreams) {
    const visible = await streamsForUser(
      q,
      user,
      {
        include_public: true,
        include_web_public: true,
        include_subscribed: true,
        exclude_archived: !withArchived,
        include_all: isAdmin(user),
        include_owner_subscribed: false,
        include_can_access_content: false,
      },
      { subject, realmStreams },
    );
    state.streams = visible.map((s) => buildStreamPayload(s, payloadCtx)).sort(byName);
  }
  return state;
}

/**
 * A visitor's channel sections (Zulip's get_web_public_subs): the channels visitors may read, as
 * subscriptions of a new subscriber (colors in turn, notifications on, not muted), without
 * subscribers; nothing unsubscribed or never subscribed. No `streams` (Zulip's include_streams is
 * off for spectators).
 */
async function visitorChannelState(q: Executor, req: SectionRequest): Promise<Record<string, unknown>> {
  if (!wants(req, "subscription")) return {};
  const streams = (await req.reads.realmStreams()).filter((s) => visitorCanRead(req.realm.id, s));
  const payloadCtx = await loadStreamPayloadContext(q, req.realm.id, streams, { systemGroups: await req.reads.systemGroups() });
  const subscriptions = streams.map((stream, i) => ({
    ...buildStreamPayload(stream, payloadCtx),
    color: STREAM_ASSIGNMENT_COLORS[i % STREAM_ASSIGNMENT_COLORS.length],
    is_muted: false,
    in_home_view: true,
    pin_to_top: false,
    desktop_notifications: true,
    audible_notifications: true,
    push_notifications: true,
    email_notifications: true,
    wildcard_mentions_notify: true,
  }));
  return { subscriptions, unsubscribed: [], never_subscribed: [] };
}
