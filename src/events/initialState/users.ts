import type { UserPayload } from "../../contract/payloads.js";
import type { User } from "../../db/schema.js";
import type { Executor } from "../../db/tx.js";
import { fetchProfileData } from "../../lib/profileData.js";
import { buildBotDicts } from "../../lib/botPayload.js";
import { canAccessUser, restrictedUserAccess } from "../../lib/access.js";
import { buildUserPayload, inaccessibleUserPayload, mediumAvatarUrlFor } from "../../lib/userPayload.js";
import { hasRealmPermissions } from "../../lib/realmPermissions.js";
import { webPublicStreamsEnabled } from "../../lib/groupSettings.js";
import { isAdmin } from "../../models/roles.js";
import { EMOJISET_CHOICES, LEGACY_DISPLAY_SETTINGS, LEGACY_NOTIFICATION_SETTINGS, NOTIFICATION_SOUNDS, userSettings } from "../../models/userSettings.js";
import { initialStateStore, listCrossRealmBots } from "../../store/initialState.js";
import { userStore } from "../../store/users.js";
import { type SectionRequest, wants } from "./request.js";
import { formatUserStatus } from "../../lib/userStatusPayload.js";
import { SYSTEM_BOT_REALM } from "../../models/systemBots.js";
import { realmUrl } from "../../lib/realms.js";

/** The realm_user section's permission flags, from the organization's group settings (Zulip 10.2). */
async function ownPermissions(q: Executor, req: SectionRequest): Promise<Record<string, boolean>> {
  // A visitor is in no group (Zulip's anonymous settings user, id 0): no permission.
  if (req.visitor) {
    const none = ["can_create_streams", "can_create_public_streams", "can_create_private_streams", "can_create_web_public_streams"];
    return Object.fromEntries([...none, "can_subscribe_other_users", "can_invite_others_to_realm"].map((name) => [name, false]));
  }
  // Group memberships with the subscriptions the channel sections read next: one statement.
  await req.reads.subject.preload(q);
  const held = await hasRealmPermissions(
    q,
    req.reads.subject,
    req.realm,
    [
      "can_create_public_channel_group",
      "can_create_private_channel_group",
      "can_create_web_public_channel_group",
      "can_add_subscribers_group",
      "can_invite_users_group",
    ],
    await req.reads.systemGroups(),
  );
  const webPublic = held.can_create_web_public_channel_group && webPublicStreamsEnabled(req.realm);
  return {
    can_create_streams: held.can_create_public_channel_group || held.can_create_private_channel_group || webPublic,
    can_create_public_streams: held.can_create_public_channel_group,
    can_create_private_streams: held.can_create_private_channel_group,
    can_create_web_public_streams: webPublic,
    can_subscribe_other_users: held.can_add_subscribers_group,
    can_invite_others_to_realm: held.can_invite_users_group,
  };
}

/**
 * A user as a visitor sees him (Zulip's format_user_row without acting_user): no real address, no
 * time zone, the day joined without the time.
 */
function visitorUserPayload(u: User): Omit<UserPayload, "timezone"> {
  const { timezone: _timezone, ...payload } = buildUserPayload(null, u, { clientGravatar: false });
  return { ...payload, delivery_email: null, date_joined: payload.date_joined?.slice(0, 10) };
}

/** Sections about people: realm_user (users and one's own account), realm_bot, user_settings, user_status. */
export async function fetchUserState(q: Executor, req: SectionRequest): Promise<Record<string, unknown>> {
  const { user, realm, client } = req;
  const state: Record<string, unknown> = {};
  const everyone = req.reads.readsRealmUsers(req) ? await req.reads.realmUsers() : [];
  if (wants(req, "realm_user") && req.visitor) {
    // Zulip's get_users_for_api for spectators: every user, no real addresses, no profile fields.
    state.realm_users = everyone.filter((u) => u.is_active).map(visitorUserPayload);
    state.realm_non_active_users = everyone.filter((u) => !u.is_active).map(visitorUserPayload);
  } else if (wants(req, "realm_user")) {
    const profileData = await fetchProfileData(q, realm.id, null);
    const options = { clientGravatar: client.clientGravatar, profileData };
    const format = (u: User) => buildUserPayload(user, u, options);
    // Users the viewer may not access (can_access_all_users_group) are listed as Zulip's active "Unknown user".
    const accessible = await restrictedUserAccess(q, user, realm);
    const unknown = everyone.filter((u) => !canAccessUser(accessible, u));
    const known = everyone.filter((u) => canAccessUser(accessible, u));
    state.realm_users = [...known.filter((u) => u.is_active).map(format), ...unknown.map((u) => inaccessibleUserPayload(u.id, realmUrl(req.config, realm)))];
    state.realm_non_active_users = known.filter((u) => !u.is_active).map(format);
  }
  if (wants(req, "realm_user")) {
    state.cross_realm_bots = (await listCrossRealmBots(q, SYSTEM_BOT_REALM)).map((bot) => ({
      ...buildUserPayload(user, bot, { clientGravatar: client.clientGravatar }),
      is_system_bot: true,
    }));
    const own = buildUserPayload(user, user, { clientGravatar: false });
    Object.assign(state, {
      user_id: user.id,
      email: own.email,
      delivery_email: user.delivery_email,
      full_name: user.full_name,
      avatar_source: user.avatar_source,
      avatar_url: own.avatar_url,
      avatar_url_medium: mediumAvatarUrlFor(user, user, false),
      is_admin: own.is_admin,
      is_owner: own.is_owner,
      is_moderator: user.role === 300,
      is_guest: own.is_guest,
      ...(await ownPermissions(q, req)),
    });
  }
  if (wants(req, "realm_bot")) {
    // Deactivated bots too, with is_active (Zulip 8.0, feature level 222).
    const bots = req.visitor ? [] : everyone.filter((u) => u.is_bot && (isAdmin(user) || u.bot_owner_id === user.id));
    state.realm_bots = await buildBotDicts(q, user, bots);
  }
  const settings = userSettings(user);
  if (wants(req, "user_settings")) {
    state.user_settings = { ...settings, timezone: user.timezone, available_notification_sounds: [...NOTIFICATION_SOUNDS], emojiset_choices: EMOJISET_CHOICES };
  }
  // Zulip's legacy top-level copies for clients older than feature level 89.
  if (wants(req, "update_display_settings") && !client.capabilities.user_settings_object) {
    for (const name of LEGACY_DISPLAY_SETTINGS) state[name] = settings[name as keyof typeof settings];
    Object.assign(state, { timezone: user.timezone, emojiset_choices: EMOJISET_CHOICES });
  }
  if (wants(req, "update_global_notifications") && !client.capabilities.user_settings_object) {
    for (const name of LEGACY_NOTIFICATION_SETTINGS) state[name] = settings[name as keyof typeof settings];
    state.available_notification_sounds = [...NOTIFICATION_SOUNDS];
  }
  // Statuses need an account (Zulip).
  if (wants(req, "user_status") && req.visitor) state.user_status = {};
  else if (wants(req, "user_status")) {
    const byId = new Map(everyone.map((u) => [u.id, u]));
    const rows = await initialStateStore.userStatuses(q, realm.id);
    const users =
      byId.size > 0
        ? byId
        : new Map(
            (
              await userStore.listByIds(
                q,
                realm.id,
                rows.map((r) => r.user_id),
              )
            ).map((u) => [u.id, u]),
          );
    const statuses: Record<string, unknown> = {};
    for (const row of rows) {
      const status = formatUserStatus(row, users.get(row.user_id)!);
      if (Object.keys(status).length > 0) statuses[String(row.user_id)] = status;
    }
    state.user_status = statuses;
  }
  return state;
}
