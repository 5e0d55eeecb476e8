import { formatUserStatus } from "../../actions/userStatus.js";
import type { User } from "../../db/schema.js";
import type { Executor } from "../../db/tx.js";
import { fetchProfileData } from "../../lib/profileData.js";
import { SYSTEM_BOT_REALM } from "../../lib/realms.js";
import { buildBotDicts } from "../../lib/botPayload.js";
import { canAccessUser, restrictedUserAccess } from "../../lib/access.js";
import { buildUserPayload, inaccessibleUserPayload } from "../../lib/userPayload.js";
import { isAdmin } from "../../models/roles.js";
import { LEGACY_DISPLAY_SETTINGS, LEGACY_NOTIFICATION_SETTINGS, NOTIFICATION_SOUNDS, userSettings } from "../../models/userSettings.js";
import { initialStateStore, listCrossRealmBots } from "../../store/initialState.js";
import { userStore } from "../../store/users.js";
import { type SectionRequest, wants } from "./index.js";

const EMOJISET_CHOICES = [
  { key: "google", text: "Google" },
  { key: "twitter", text: "Twitter" },
  { key: "text", text: "Plain text" },
];

/** Sections about people: realm_user (users and one's own account), realm_bot, user_settings, user_status. */
export async function fetchUserState(q: Executor, req: SectionRequest): Promise<Record<string, unknown>> {
  const { user, realm, client } = req;
  const state: Record<string, unknown> = {};
  const everyone = req.reads.readsRealmUsers(req) ? await req.reads.realmUsers() : [];
  if (wants(req, "realm_user")) {
    const profileData = await fetchProfileData(q, realm.id, null);
    const options = { clientGravatar: client.clientGravatar, profileData };
    const format = (u: User) => buildUserPayload(user, u, options);
    // Users the viewer may not access (can_access_all_users_group) are listed as Zulip's active "Unknown user".
    const accessible = await restrictedUserAccess(q, user, realm);
    const unknown = everyone.filter((u) => !canAccessUser(accessible, u));
    const known = everyone.filter((u) => canAccessUser(accessible, u));
    state.realm_users = [
      ...known.filter((u) => u.is_active).map(format),
      ...unknown.map((u) => inaccessibleUserPayload(u.id, req.config.externalUrl)),
    ];
    state.realm_non_active_users = known.filter((u) => !u.is_active).map(format);
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
      avatar_url_medium: own.avatar_url,
      is_admin: own.is_admin,
      is_owner: own.is_owner,
      is_moderator: user.role === 300,
      is_guest: own.is_guest,
      can_create_streams: user.role !== 600,
      can_create_public_streams: user.role !== 600,
      can_create_private_streams: user.role !== 600,
      can_create_web_public_streams: user.role === 100,
      can_subscribe_other_users: user.role !== 600,
      can_invite_others_to_realm: user.role !== 600,
    });
  }
  if (wants(req, "realm_bot")) {
    // Deactivated bots too, with is_active (Zulip 8.0, feature level 222).
    const bots = everyone.filter((u) => u.is_bot && (isAdmin(user) || u.bot_owner_id === user.id));
    state.realm_bots = await buildBotDicts(q, user, bots);
  }
  if (wants(req, "user_settings")) {
    const settings = { ...userSettings(user), available_notification_sounds: [...NOTIFICATION_SOUNDS], emojiset_choices: EMOJISET_CHOICES };
    state.user_settings = settings;
    if (!client.capabilities.user_settings_object) {
      // Zulip's legacy top-level copies for clients older than feature level 89.
      for (const [name, value] of Object.entries(settings)) {
        if (LEGACY_DISPLAY_SETTINGS.has(name) || LEGACY_NOTIFICATION_SETTINGS.has(name) || name === "timezone") state[name] = value;
      }
    }
  }
  if (wants(req, "user_status")) {
    const byId = new Map(everyone.map((u) => [u.id, u]));
    const rows = await initialStateStore.userStatuses(q, realm.id);
    const users = byId.size > 0 ? byId : new Map((await userStore.listByIds(q, realm.id, rows.map((r) => r.user_id))).map((u) => [u.id, u]));
    const statuses: Record<string, unknown> = {};
    for (const row of rows) {
      const status = formatUserStatus(row, users.get(row.user_id)!);
      if (Object.keys(status).length > 0) statuses[String(row.user_id)] = status;
    }
    state.user_status = statuses;
  }
  return state;
}
