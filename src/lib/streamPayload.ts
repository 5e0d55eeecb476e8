import type { Stream } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { streamStore } from "../store/streams.js";
import type { Subscription } from "../store/subscriptions.js";
import { userGroupStore } from "../store/userGroups.js";
import { nowSeconds } from "../util/time.js";
import { groupSettingApiValues, STREAM_GROUP_SETTING_NAMES, type GroupSettingValue } from "./groupSettings.js";

/**
 * Channel objects as Zulip 10.2 sends them (stream_to_dict, gather_subscriptions): the one place
 * that names their fields. Computed fields follow Zulip:
 * - is_recently_active: a message in the last 180 days (Stream.LAST_ACTIVITY_DAYS_BEFORE_FOR_ACTIVE);
 *   a channel is active on creation until Zulip's daily job would first look at it.
 * - stream_weekly_traffic: messages of the last 28 days per week; null for channels younger than
 *   7 days and in creation events; at least 1 if there was any traffic; 2 significant digits.
 * - stream_post_policy / is_announcement_only: derived from can_send_message_group.
 */
const DAY = 86_400;
const ACTIVE_DAYS = 180;
const TRAFFIC_DAYS = 28;
const TRAFFIC_MIN_AGE_DAYS = 7;

/** Stream.SYSTEM_GROUPS_ENUM_MAP: can_send_message_group → legacy stream_post_policy. */
const POST_POLICY_BY_GROUP: Record<string, number> = {
  "role:everyone": 1,
  "role:administrators": 2,
  "role:fullmembers": 3,
  "role:moderators": 4,
};
const POST_POLICY_ADMINS = 2;

export interface StreamPayloadContext {
  groupValues: Map<number, GroupSettingValue>;
  systemGroupNames: Map<number, string>;
  activity: Map<number, { recentCount: number; lastSent: number }> | null;
  now: number;
}

/** Everything buildStreamPayload needs for these channels, in a constant number of queries. */
export async function loadStreamPayloadContext(
  q: Executor,
  realmId: number,
  streams: readonly Stream[],
  options: {
    /** The realm's system groups (name → id), when the caller has them already. */
    systemGroups?: ReadonlyMap<string, number>;
    /** false: stream_weekly_traffic stays null and is not read (creation events, as Zulip). */
    traffic?: boolean;
  } = {},
): Promise<StreamPayloadContext> {
  const now = nowSeconds();
  const groupIds = streams.flatMap((s) => STREAM_GROUP_SETTING_NAMES.map((name) => s[`${name}_id`])).filter((id): id is number => id !== null);
  const systemGroups = options.systemGroups ? [...options.systemGroups].map(([name, id]) => ({ id, name })) : await userGroupStore.listSystemGroups(q, realmId);
  const recipientIds = streams.map((s) => s.recipient_id).filter((id): id is number => id !== null);
  return {
    groupValues: await groupSettingApiValues(q, realmId, groupIds),
    systemGroupNames: new Map(systemGroups.map((g) => [g.id, g.name ?? ""])),
    activity: options.traffic === false ? null : await streamStore.messageActivity(q, recipientIds, now - TRAFFIC_DAYS * DAY, now - ACTIVE_DAYS * DAY),
    now,
  };
}

/** Zulip's round_to_2_significant_digits (Python round: halves to even). */
function roundTo2SignificantDigits(n: number): number {
  const digits = String(n).length;
  if (digits <= 2) return n;
  const factor = 10 ** (digits - 2);
  const whole = Math.floor(n / factor);
  const rest = n - whole * factor;
  const up = rest * 2 > factor || (rest * 2 === factor && whole % 2 === 1);
  return (up ? whole + 1 : whole) * factor;
}

function weeklyTraffic(stream: Stream, ctx: StreamPayloadContext): number | null {
  if (ctx.activity === null) return null;
  const recent = stream.recipient_id !== null ? (ctx.activity.get(stream.recipient_id)?.recentCount ?? 0) : 0;
  const ageDays = Math.floor((ctx.now - stream.date_created) / DAY);
  let average: number;
  if (ageDays >= TRAFFIC_DAYS) average = Math.floor(recent / 4);
  else if (ageDays >= TRAFFIC_MIN_AGE_DAYS) average = Math.floor((recent * 7) / ageDays);
  else return null;
  if (average === 0 && recent > 0) average = 1;
  return roundTo2SignificantDigits(average);
}

function isRecentlyActive(stream: Stream, ctx: StreamPayloadContext): boolean {
  if (ctx.now - stream.date_created < DAY) return true;
  const last = stream.recipient_id !== null ? ctx.activity?.get(stream.recipient_id)?.lastSent : undefined;
  return last !== undefined && last >= ctx.now - ACTIVE_DAYS * DAY;
}

export function streamPostPolicy(stream: Stream, ctx: StreamPayloadContext): number {
  const name = stream.can_send_message_group_id !== null ? ctx.systemGroupNames.get(stream.can_send_message_group_id) : undefined;
  return (name && POST_POLICY_BY_GROUP[name]) || 1;
}

export function groupSettingValue(ctx: StreamPayloadContext, groupId: number | null): GroupSettingValue {
  return (groupId !== null && ctx.groupValues.get(groupId)) || { direct_members: [], direct_subgroups: [] };
}

export function buildStreamPayload(stream: Stream, ctx: StreamPayloadContext) {
  const postPolicy = streamPostPolicy(stream, ctx);
  return {
    stream_id: stream.id,
    name: stream.name,
    is_archived: stream.is_archived === 1,
    description: stream.description,
    rendered_description: stream.rendered_description,
    date_created: stream.date_created,
    creator_id: stream.creator_id,
    invite_only: stream.invite_only === 1,
    is_web_public: stream.is_web_public === 1,
    stream_post_policy: postPolicy,
    is_announcement_only: postPolicy === POST_POLICY_ADMINS,
    message_retention_days: stream.message_retention_days,
    history_public_to_subscribers: stream.history_public_to_subscribers === 1,
    first_message_id: stream.first_message_id,
    is_recently_active: isRecentlyActive(stream, ctx),
    stream_weekly_traffic: weeklyTraffic(stream, ctx),
    can_add_subscribers_group: groupSettingValue(ctx, stream.can_add_subscribers_group_id),
    can_administer_channel_group: groupSettingValue(ctx, stream.can_administer_channel_group_id),
    can_remove_subscribers_group: groupSettingValue(ctx, stream.can_remove_subscribers_group_id),
    can_send_message_group: groupSettingValue(ctx, stream.can_send_message_group_id),
    can_subscribe_group: groupSettingValue(ctx, stream.can_subscribe_group_id),
  };
}
export type StreamPayload = ReturnType<typeof buildStreamPayload>;

const nullableFlag = (v: number | null) => (v === null ? null : v === 1);

/** A subscription object; `subscribers` only when asked for (include_subscribers, add events). */
export function buildSubscriptionPayload(stream: Stream, sub: Subscription, ctx: StreamPayloadContext, subscribers?: number[]) {
  return {
    ...buildStreamPayload(stream, ctx),
    color: sub.color,
    is_muted: sub.is_muted === 1,
    in_home_view: sub.is_muted !== 1,
    pin_to_top: sub.pin_to_top === 1,
    desktop_notifications: nullableFlag(sub.desktop_notifications),
    audible_notifications: nullableFlag(sub.audible_notifications),
    push_notifications: nullableFlag(sub.push_notifications),
    email_notifications: nullableFlag(sub.email_notifications),
    wildcard_mentions_notify: nullableFlag(sub.wildcard_mentions_notify),
    ...(subscribers ? { subscribers } : {}),
  };
}
