import { Role } from "../../src/contract/constants.js";
import { myUserId } from "./api.js";
import type { Channel } from "./channels.js";
import { holdsSetting } from "./permissions.js";
import { realm, subscriptions, users } from "./state.js";

/**
 * What the channels overlay offers whom (Zulip's stream_data / settings_data checks for channels),
 * read from the channel's group settings and the organization's. The server decides in the end;
 * its refusal is shown as it words it.
 */
const myRole = () => users.value.get(myUserId)?.role ?? Role.MEMBER;
export const amAdmin = () => myRole() <= Role.ADMINISTRATOR;
export const amOwner = () => myRole() === Role.OWNER;
const amGuest = () => myRole() >= Role.GUEST;

const realmHolds = (name: string) => {
  const value = realm.value[`realm_${name}`];
  return value === undefined ? !amGuest() : holdsSetting(value);
};

export const isSubscribed = (channelId: number) => subscriptions.value.has(channelId);

/** Renaming, describing, privacy, permissions, archiving. */
export function canAdminister(channel: Channel): boolean {
  return amAdmin() || holdsSetting(channel.can_administer_channel_group);
}

/** Joining oneself. */
export function canSubscribe(channel: Channel): boolean {
  if (channel.is_archived) return false;
  if (!channel.invite_only && !amGuest()) return true;
  return holdsSetting(channel.can_subscribe_group) || holdsSetting(channel.can_add_subscribers_group) || canAdminister(channel);
}

/** Adding other people. */
export function canAddSubscribers(channel: Channel): boolean {
  if (channel.is_archived) return false;
  if (canAdminister(channel) || holdsSetting(channel.can_add_subscribers_group)) return true;
  return (isSubscribed(channel.stream_id) || !channel.invite_only) && realmHolds("can_add_subscribers_group");
}

/** Removing other people. */
export function canRemoveSubscribers(channel: Channel): boolean {
  return canAdminister(channel) || holdsSetting(channel.can_remove_subscribers_group);
}

export type Privacy = "public" | "web-public" | "private-shared" | "private-protected";

export function privacyOf(channel: Pick<Channel, "invite_only" | "is_web_public" | "history_public_to_subscribers">): Privacy {
  if (channel.is_web_public) return "web-public";
  if (!channel.invite_only) return "public";
  return channel.history_public_to_subscribers ? "private-shared" : "private-protected";
}

export const PRIVACY_PARAMS: Record<Privacy, { invite_only: boolean; is_web_public: boolean; history_public_to_subscribers: boolean }> = {
  public: { invite_only: false, is_web_public: false, history_public_to_subscribers: true },
  "web-public": { invite_only: false, is_web_public: true, history_public_to_subscribers: true },
  "private-shared": { invite_only: true, is_web_public: false, history_public_to_subscribers: true },
  "private-protected": { invite_only: true, is_web_public: false, history_public_to_subscribers: false },
};

export const PRIVACY_LABELS: Array<[Privacy, string, string]> = [
  ["web-public", "Web-public", "Anyone on the internet can view messages; members can join."],
  ["public", "Public", "Members can join and view the complete message history without joining."],
  ["private-shared", "Private, shared history", "Must be invited by a subscriber; new subscribers can view the complete message history."],
  ["private-protected", "Private, protected history", "Must be invited by a subscriber; new subscribers can only see messages sent after they join."],
];

/** The kinds of channel the organization lets me create. */
export function creatablePrivacies(): Privacy[] {
  const out: Privacy[] = [];
  if (realm.value.realm_enable_spectator_access && realmHolds("can_create_web_public_channel_group")) out.push("web-public");
  if (realmHolds("can_create_public_channel_group")) out.push("public");
  if (realmHolds("can_create_private_channel_group")) out.push("private-shared", "private-protected");
  return out;
}
