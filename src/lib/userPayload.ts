import crypto from "node:crypto";
import type { UserPayload } from "../contract/payloads.js";
import type { User } from "../db/schema.js";
import { isAdmin, isGuest, isModerator, Role } from "../models/roles.js";
import { isoFromSeconds } from "../util/time.js";
import { userSettings } from "../models/userSettings.js";

/**
 * The user objects of GET /users, GET /users/{id}, GET /users/me and realm_users (Zulip's
 * `format_user_row`). Field names and the rules for hiding emails and avatars live here only.
 */
export type ProfileData = Record<string, { value: string; rendered_value?: string }>;

export interface UserPayloadOptions {
  clientGravatar: boolean;
  /** Present only when custom profile fields were requested; keyed by user id. */
  profileData?: Map<number, ProfileData>;
}

/** Zulip's email_address_visibility values. */
export const EmailVisibility = { EVERYONE: 1, MEMBERS: 2, ADMINS: 3, NOBODY: 4, MODERATORS: 5 } as const;

/** Whether `viewer` may see `target`'s real (delivery) email address. */
export function canSeeDeliveryEmail(viewer: User | null, target: User): boolean {
  if (target.is_bot) return true;
  if (viewer && viewer.id === target.id) return true;
  const visibility = userSettings(target).email_address_visibility;
  switch (visibility) {
    case EmailVisibility.EVERYONE:
      return true;
    case EmailVisibility.MEMBERS:
      return viewer !== null && !isGuest(viewer);
    case EmailVisibility.MODERATORS:
      return viewer !== null && isModerator(viewer);
    case EmailVisibility.ADMINS:
      return viewer !== null && isAdmin(viewer);
    default:
      return false;
  }
}

/**
 * The API email (`email` in every payload, `sender_email`) that `user` should have: the real
 * address when everyone may see it (and for bots), else Zulip's `user{id}@{realm host}`
 * (get_display_email_address). `realmUrl` (lib/realms.ts) gives the realm host.
 */
export function displayEmail(user: User, realmUrl: string): string {
  if (user.is_bot || userSettings(user).email_address_visibility === EmailVisibility.EVERYONE) return user.delivery_email;
  return fakeEmail(user.id, realmUrl);
}

/** Zulip's user{id}@{realm host}: the address shown instead of one the viewer may not know. */
export function fakeEmail(userId: number, realmUrl: string): string {
  return `user${userId}@${new URL(realmUrl).hostname}`;
}

/** Zulip's UserProfile.INACCESSIBLE_USER_NAME. */
export const INACCESSIBLE_USER_NAME = "Unknown user";

/** What a user restricted by can_access_all_users_group sees of a user they may not access (Zulip's get_data_for_inaccessible_user). */
export function inaccessibleUserPayload(userId: number, realmUrl: string): UserPayload {
  return {
    email: fakeEmail(userId, realmUrl),
    user_id: userId,
    avatar_version: 1,
    is_admin: false,
    is_owner: false,
    is_guest: false,
    role: Role.MEMBER,
    is_bot: false,
    full_name: INACCESSIBLE_USER_NAME,
    timezone: "",
    is_active: true,
    date_joined: isoFromSeconds(0),
    delivery_email: null,
    avatar_url: inaccessibleAvatarUrl(realmUrl),
    profile_data: {},
  };
}

/** Zulip's get_avatar_for_inaccessible_user. */
export function inaccessibleAvatarUrl(realmUrl: string): string {
  return new URL("/static/images/unknown-user-avatar.png", realmUrl).toString();
}

export function gravatarUrl(email: string, avatarVersion: number): string {
  const hash = crypto.createHash("md5").update(email.trim().toLowerCase()).digest("hex");
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=${avatarVersion}`;
}

/** avatar_url: null when the client computes gravatars itself and can see the real email. */
export function avatarUrlFor(viewer: User | null, user: User, clientGravatar: boolean): string | null {
  if (user.avatar_source === "G") {
    if (clientGravatar && canSeeDeliveryEmail(viewer, user)) return null;
    return gravatarUrl(user.delivery_email, user.avatar_version);
  }
  return `/user_avatars/${user.realm_id}/${user.id}.png?version=${user.avatar_version}`;
}

/** avatar_url_medium: the 500 px avatar (Zulip's medium size); a gravatar is the same URL. */
export function mediumAvatarUrlFor(viewer: User | null, user: User, clientGravatar: boolean): string | null {
  if (user.avatar_source === "G") return avatarUrlFor(viewer, user, clientGravatar);
  return `/user_avatars/${user.realm_id}/${user.id}-medium.png?version=${user.avatar_version}`;
}

export function buildUserPayload(viewer: User | null, user: User, options: UserPayloadOptions): UserPayload {
  const payload: UserPayload = {
    user_id: user.id,
    delivery_email: canSeeDeliveryEmail(viewer, user) ? user.delivery_email : null,
    email: user.email,
    full_name: user.full_name,
    date_joined: isoFromSeconds(user.date_joined),
    is_active: user.is_active === 1,
    is_owner: user.role === Role.OWNER,
    is_admin: isAdmin(user),
    is_guest: isGuest(user),
    is_bot: user.is_bot === 1,
    bot_type: user.bot_type,
    role: user.role,
    timezone: user.timezone,
    avatar_url: avatarUrlFor(viewer, user, options.clientGravatar),
    avatar_version: user.avatar_version,
  };
  if (user.is_bot) payload.bot_owner_id = user.bot_owner_id;
  if (options.profileData && !user.is_bot) payload.profile_data = options.profileData.get(user.id) ?? {};
  return payload;
}
