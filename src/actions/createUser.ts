import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { userIdsWhoCanAccessUser } from "../lib/access.js";
import { generateApiKey } from "../lib/apiKeys.js";
import { sendInaccessibleUserCreated, userAccessMayBeRestricted } from "../lib/userAccessEvents.js";
import { buildUserPayload } from "../lib/userPayload.js";
import { RecipientType, Role } from "../models/roles.js";
import { directSystemGroupsForRole } from "../models/systemGroups.js";
import { realmUserSettingsDefaults, serializeUserSettings, userSettings } from "../models/userSettings.js";
import { auditLogStore } from "../store/auditLog.js";
import { newUserChannelRecipientIds } from "../store/newUserChannels.js";
import { subscriptionStore } from "../store/subscriptions.js";
import { recipientStore } from "../store/recipients.js";
import { userGroupStore } from "../store/userGroups.js";
import { userStore } from "../store/users.js";
import { nowSeconds } from "../util/time.js";
import { checkUserLimit } from "./realmLimits.js";
import { notifySubscriberPeers } from "./subscriptionPeers.js";

export interface NewUserInput {
  email: string;
  full_name: string;
  /**
   * From hashPassword(), computed BEFORE the transaction opens (scrypt is slow on purpose and
   * must not hold the database). Null: the user cannot log in with a password.
   */
  password_hash: string | null;
  role?: number;
  timezone?: string;
  is_bot?: boolean;
  bot_type?: number | null;
  bot_owner_id?: number | null;
  /** "U": the caller stores the uploaded avatar's images in the same transaction (a bot created with one). */
  avatar_source?: "G" | "U";
  can_create_users?: boolean;
  can_change_user_emails?: boolean;
  /**
   * The channels a human user joins: these ids (active channels of the realm), with or without
   * the realm's default channels. Absent: the default channels (Zulip's sign-up without an invitation).
   */
  channels?: { stream_ids: readonly number[]; include_default_channels: boolean };
  /** Explicit id (development seed only). */
  id?: number;
  acting_user_id?: number | null;
  /** The organization's URL (realmUrl): restricted guests then get Zulip's "Unknown user" add about the new user (its fake email's domain). */
  realmUrl?: string;
}

/**
 * Creates an account: the user row, their personal recipient, system-group memberships and
 * default-channel subscriptions, in the caller's transaction. Sends realm_user/add to the realm.
 * The caller has checked permissions and that the email is free.
 */
export async function doCreateUser(tx: Tx, realm: Realm, input: NewUserInput): Promise<User> {
  const role = input.role ?? Role.MEMBER;
  const now = nowSeconds();
  if (!input.is_bot) await checkUserLimit(tx, realm.id);
  // Another request creating the address at the same moment makes this insert fail on the unique
  // index; the transaction then runs once more (db/groupCommit.ts) and the caller's check answers
  // with its own text (POST /users, POST /bots, the sign-up form).
  const user = await userStore.insert(tx.q, {
    ...(input.id !== undefined ? { id: input.id } : {}),
    realm_id: realm.id,
    email: input.email,
    delivery_email: input.email,
    full_name: input.full_name,
    role,
    is_bot: input.is_bot ? 1 : 0,
    bot_type: input.is_bot ? (input.bot_type ?? 1) : null,
    bot_owner_id: input.bot_owner_id ?? null,
    ...(input.avatar_source ? { avatar_source: input.avatar_source } : {}),
    date_joined: now,
    timezone: input.timezone ?? "",
    api_key: generateApiKey(),
    password_hash: input.password_hash,
    can_create_users: input.can_create_users ? 1 : 0,
    can_change_user_emails: input.can_change_user_emails ? 1 : 0,
    // Zulip's copy_default_settings: the organization's defaults for new users.
    settings: serializeUserSettings(realmUserSettingsDefaults(realm)),
  });
  const recipientId = await recipientStore.insert(tx.q, RecipientType.PERSONAL, user.id);
  await userStore.update(tx.q, user.id, { recipient_id: recipientId });

  for (const name of directSystemGroupsForRole(role)) {
    const group = await userGroupStore.getSystemGroup(tx.q, realm.id, name);
    await userGroupStore.addMembers(tx.q, group.id, [user.id]);
  }

  if (!input.is_bot) {
    const channels = input.channels ?? { stream_ids: [], include_default_channels: true };
    const recipientIds = await newUserChannelRecipientIds(tx.q, realm.id, channels.stream_ids, channels.include_default_channels);
    await subscriptionStore.subscribeUser(tx.q, user.id, recipientIds);
  }

  await auditLogStore.insert(tx.q, {
    realm_id: realm.id,
    event_type: "user_created",
    acting_user_id: input.acting_user_id ?? null,
    modified_user_id: user.id,
  });
  const created = { ...user, recipient_id: recipientId };
  // Guests restricted by can_access_all_users_group learn only of users they share something with.
  const audience = await userIdsWhoCanAccessUser(tx.q, created);
  const profileData = input.is_bot ? undefined : new Map([[created.id, {}]]);
  tx.sendEventOnCommit({ type: "realm_user", op: "add", person: buildUserPayload(null, created, { clientGravatar: false, profileData }) }, audience);
  if (input.realmUrl !== undefined && !created.is_bot && userAccessMayBeRestricted(realm)) {
    const informed = new Set(audience);
    sendInaccessibleUserCreated(
      tx,
      created as User,
      input.realmUrl,
      (await userStore.listActiveIds(tx.q, realm.id)).filter((id) => !informed.has(id)),
    );
  }
  for (const groupId of await userStore.listDirectNamedGroupIds(tx.q, created.id)) {
    tx.sendEventOnCommit({ type: "user_group", op: "add_members", group_id: groupId, user_ids: [created.id] }, audience);
  }
  await notifySubscriberPeers(tx, realm, created as User, "peer_add");
  await notifyExportConsent(tx, created as User);
  return created;
}

/**
 * Zulip's realm_export_consent event (feature level 312): administrators learn a user's consent
 * to exports of private data when it changes and when the user is created or reactivated.
 */
export async function notifyExportConsent(tx: Tx, user: User): Promise<void> {
  if (user.is_bot) return;
  const consented = userSettings(user).allow_private_data_export;
  tx.sendEventOnCommit({ type: "realm_export_consent", user_id: user.id, consented }, await userStore.listActiveAdminIds(tx.q, user.realm_id));
}
