import { RESOLVED_TOPIC_PREFIX, Role } from "../../src/contract/constants.js";
import { myUserId } from "./api.js";
import { type Message, realm, userGroups, users } from "./state.js";

/**
 * What the organization lets me do with topics (Zulip's settings_data / message_edit checks), so
 * the app offers only what the server will accept. The server decides in the end; its refusal is
 * shown as a notice.
 */

/** My role code as /register gives it (a smaller code is a stronger role). */
function myRole(): number {
  return (users.value.get(myUserId) as { role?: number } | undefined)?.role ?? (realm.value.role as number | undefined) ?? Role.MEMBER;
}

export const isModerator = () => myRole() <= Role.MODERATOR;
const isGuest = () => myRole() >= Role.GUEST;

function inGroup(groupId: number, seen = new Set<number>()): boolean {
  if (seen.has(groupId)) return false;
  seen.add(groupId);
  const group = userGroups.value.get(groupId);
  if (!group) return false;
  return group.members.includes(myUserId) || group.direct_subgroup_ids.some((id) => inGroup(id, seen));
}

/** A group-setting value: a group id, or an anonymous group of members and subgroups. */
export function holdsSetting(value: unknown): boolean {
  if (typeof value === "number") return inGroup(value);
  if (value && typeof value === "object") {
    const v = value as { direct_members?: number[]; direct_subgroups?: number[] };
    return (v.direct_members ?? []).includes(myUserId) || (v.direct_subgroups ?? []).some((id) => inGroup(id));
  }
  return false;
}

function realmPermission(name: string): boolean {
  const value = realm.value[`realm_${name}`];
  // An older server without group settings: the server decides.
  return value === undefined ? true : holdsSetting(value);
}

function withinLimit(setting: string, timestamp: number): boolean {
  const limit = realm.value[`realm_${setting}`] as number | null | undefined;
  if (limit === null || limit === undefined || limit === 0 || isModerator()) return true;
  return Date.now() / 1000 - timestamp <= limit;
}

/** Renaming a topic (moving messages between topics of a channel). */
export function canRenameTopic(timestamp: number): boolean {
  return realmPermission("can_move_messages_between_topics_group") && withinLimit("move_messages_within_stream_limit_seconds", timestamp);
}

/** Moving messages to another channel. */
export function canMoveChannel(timestamp: number): boolean {
  return !isGuest() && realmPermission("can_move_messages_between_channels_group") && withinLimit("move_messages_between_streams_limit_seconds", timestamp);
}

export function canResolve(): boolean {
  return realmPermission("can_resolve_topics_group");
}

export function isResolved(topic: string): boolean {
  return topic.startsWith(RESOLVED_TOPIC_PREFIX);
}

/** The topic's name when resolved or unresolved (Zulip strips any run of ✔ and spaces when unresolving). */
export function toggledResolved(topic: string): string {
  return isResolved(topic) ? topic.replace(/^(✔ ?)+/u, "").trimStart() : RESOLVED_TOPIC_PREFIX + topic;
}

/** Whether the organization lets members see this message's edit history (it must have been edited). */
export function editHistoryVisible(m: Message): boolean {
  const r = realm.value;
  return !!m.last_edit_timestamp && r.realm_allow_edit_history !== false && r.realm_message_edit_history_visibility_policy !== "none";
}

/** Whether the organization shows who has read a message. */
export function readReceiptsEnabled(): boolean {
  return !!realm.value.realm_enable_read_receipts;
}
