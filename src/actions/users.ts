import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { queueEmail } from "../email/queue.js";
import {
  BadNameOrUsernameError,
  badRequest,
  CannotDeactivateLastUserError,
  OrganizationAdministratorRequiredError,
  OrganizationOwnerRequiredError,
} from "../lib/errors.js";
import { userIdsWhoCanAccessUser } from "../lib/access.js";
import { passwordLengthAllowed } from "../lib/passwords.js";
import { sendAccessChangesAbout } from "../lib/userAccessEvents.js";
import { EmailVisibility } from "../lib/userPayload.js";
import { isAdmin, isOwner, Role } from "../models/roles.js";
import { directSystemGroupsForRole } from "../models/systemGroups.js";
import { userSettings } from "../models/userSettings.js";
import { auditLogStore } from "../store/auditLog.js";
import { userGroupStore } from "../store/userGroups.js";
import { userStore } from "../store/users.js";
import { checkProfileData, doUpdateProfileData, type ProfileDataEntry } from "./customProfileFields.js";
import { doCreateUser, notifyExportConsent } from "./createUser.js";
import { expireInvitationsOfUser } from "./invitations.js";
import { checkUserLimit } from "./realmLimits.js";
import { notifySubscriberPeers } from "./subscriptionPeers.js";

const NAME_MAX_LENGTH = 100;
const NAME_MIN_LENGTH = 2;
const NAME_PROHIBITED = /[*`\\>"@\p{Cc}]/u;
const EMAIL_FORMAT = /^[^\s@]+@([^\s@.]+\.)+[^\s@.]+$/;

/** Zulip's check_full_name: the trimmed name, or Zulip's error text. */
export function checkFullName(raw: string): string {
  const name = raw.trim();
  if (name.length > NAME_MAX_LENGTH) throw badRequest("Name too long!");
  if (name.length < NAME_MIN_LENGTH) throw badRequest("Name too short!");
  if (NAME_PROHIBITED.test(name)) throw badRequest("Invalid characters in name!");
  if (/\|\d+$/.test(raw)) throw badRequest("Invalid format!");
  return name;
}

// ---- creation (POST /users) ----

export interface CreateUserRequest {
  email: string;
  full_name: string;
  /** From hashPassword() on a password that passed checkNewPassword(), hashed before the transaction. */
  password_hash: string;
}

/** Zulip's password length rule for new passwords (any length up to the maximum in development mode). */
export function checkNewPassword(password: string, dev: boolean): string {
  if (!passwordLengthAllowed(password, dev)) throw badRequest("The password is too weak.");
  return password;
}

/** The caller has checked that `actor` is an administrator. */
export async function checkCreateUser(tx: Tx, actor: User, realm: Realm, req: CreateUserRequest & { realmUrl?: string }): Promise<User> {
  if (!actor.can_create_users) throw badRequest("User not authorized to create users");
  const fullName = checkFullName(req.full_name);
  if (!EMAIL_FORMAT.test(req.email) || req.email.length > 254) throw new BadNameOrUsernameError();
  if (await userStore.getByEmail(tx.q, realm.id, req.email)) throw badRequest(`Email '${req.email}' already in use`);
  return doCreateUser(tx, realm, {
    email: req.email,
    full_name: fullName,
    password_hash: req.password_hash,
    acting_user_id: actor.id,
    realmUrl: req.realmUrl,
  });
}

// ---- changes by an administrator (PATCH /users/{id}) ----

export interface UpdateUserRequest {
  full_name?: string;
  role?: number;
  profile_data?: ProfileDataEntry[];
  new_email?: string;
}

/** Zulip's check_last_owner: the target is the realm's only active human owner (owners locked). */
export async function isLastOwner(tx: Tx, user: User): Promise<boolean> {
  if (!isOwner(user) || user.is_bot) return false;
  const owners = await userStore.lockActiveWithRole(tx.q, tx.dialect, user.realm_id, Role.OWNER);
  return owners.length === 1 && owners[0] === user.id;
}

/** Every check runs before the first write. `target` comes from accessUserById(forAdministration). */
export async function checkUpdateUser(tx: Tx, actor: User, target: User, req: UpdateUserRequest): Promise<void> {
  const changeRole = req.role !== undefined && req.role !== target.role;
  if (changeRole) {
    if ((req.role === Role.OWNER || isOwner(target)) && !isOwner(actor)) throw new OrganizationOwnerRequiredError();
    if (!isAdmin(actor)) throw new OrganizationAdministratorRequiredError();
    if (await isLastOwner(tx, target)) {
      throw badRequest("The owner permission cannot be removed from the only organization owner.");
    }
  }
  const changeName = req.full_name !== undefined && req.full_name !== target.full_name && req.full_name.trim() !== "";
  const fullName = changeName ? checkFullName(req.full_name!) : undefined;
  const profileData = req.profile_data ? await checkProfileData(tx, actor, target, req.profile_data) : [];
  const newEmail = req.new_email !== undefined ? await checkNewEmail(tx, actor, target, req.new_email) : undefined;

  if (changeRole) await doChangeUserRole(tx, target, req.role!, actor);
  if (fullName !== undefined && fullName !== target.full_name) await doChangeFullName(tx, target, fullName, actor);
  await doUpdateProfileData(tx, target, profileData);
  if (newEmail !== undefined) await doChangeUserDeliveryEmail(tx, target, newEmail, actor);
}

async function checkNewEmail(tx: Tx, actor: User, target: User, email: string): Promise<string | undefined> {
  if (!actor.can_change_user_emails || !isAdmin(actor)) throw badRequest("User not authorized to change user emails");
  if (email === target.delivery_email) return undefined;
  if (!EMAIL_FORMAT.test(email) || email.length > 254) throw badRequest("Invalid address.");
  const existing = await userStore.getByEmail(tx.q, target.realm_id, email);
  if (existing && existing.id !== target.id) throw badRequest("Already has an account.");
  return email;
}

async function notifyUserUpdate(tx: Tx, user: User, person: Record<string, unknown>): Promise<void> {
  tx.sendEventOnCommit({ type: "realm_user", op: "update", person: { user_id: user.id, ...person } }, await userIdsWhoCanAccessUser(tx.q, user));
}

async function notifyBotUpdate(tx: Tx, bot: User, fields: Record<string, unknown>): Promise<void> {
  const audience = await userStore.listActiveAdminIds(tx.q, bot.realm_id);
  if (bot.bot_owner_id !== null) audience.push(bot.bot_owner_id);
  tx.sendEventOnCommit({ type: "realm_bot", op: "update", bot: { user_id: bot.id, ...fields } }, audience);
}

/** Changes the role and the user's direct system-group memberships to match it. */
export async function doChangeUserRole(tx: Tx, user: User, role: number, actor: User | null): Promise<void> {
  const oldRole = user.role;
  if (oldRole === role) return;
  await userStore.update(tx.q, user.id, { role });
  await auditLogStore.insert(tx.q, {
    realm_id: user.realm_id,
    event_type: "user_role_changed",
    acting_user_id: actor?.id ?? null,
    modified_user_id: user.id,
    extra_data: { old_value: oldRole, new_value: role },
  });
  const audience = await userIdsWhoCanAccessUser(tx.q, user);
  tx.sendEventOnCommit({ type: "realm_user", op: "update", person: { user_id: user.id, role } }, audience);

  const oldGroups = directSystemGroupsForRole(oldRole);
  const newGroups = directSystemGroupsForRole(role);
  const groupIds = new Map((await userGroupStore.listSystemGroups(tx.q, user.realm_id)).map((g) => [g.name, g.id]));
  const removed = oldGroups.filter((name) => !newGroups.includes(name)).map((name) => groupIds.get(name)!);
  const added = newGroups.filter((name) => !oldGroups.includes(name)).map((name) => groupIds.get(name)!);
  await userGroupStore.removeMemberFromGroups(tx.q, user.id, removed);
  for (const groupId of removed) {
    tx.sendEventOnCommit({ type: "user_group", op: "remove_members", group_id: groupId, user_ids: [user.id] }, audience);
  }
  for (const groupId of added) {
    await userGroupStore.addMembers(tx.q, groupId, [user.id]);
    tx.sendEventOnCommit({ type: "user_group", op: "add_members", group_id: groupId, user_ids: [user.id] }, audience);
  }
}

export async function doChangeFullName(tx: Tx, user: User, fullName: string, actor: User | null): Promise<void> {
  await userStore.update(tx.q, user.id, { full_name: fullName });
  await auditLogStore.insert(tx.q, {
    realm_id: user.realm_id,
    event_type: "user_full_name_changed",
    acting_user_id: actor?.id ?? null,
    modified_user_id: user.id,
    extra_data: { old_value: user.full_name, new_value: fullName },
  });
  await notifyUserUpdate(tx, user, { full_name: fullName });
  if (user.is_bot) await notifyBotUpdate(tx, user, { full_name: fullName });
}

/**
 * Changes the real email; the API email follows it when the user's email is visible to everyone
 * (otherwise the API email is a dummy address that does not change).
 */
export async function doChangeUserDeliveryEmail(tx: Tx, user: User, email: string, actor: User | null): Promise<void> {
  const publicEmail = userSettings(user).email_address_visibility === EmailVisibility.EVERYONE;
  await userStore.update(tx.q, user.id, publicEmail ? { delivery_email: email, email } : { delivery_email: email });
  await auditLogStore.insert(tx.q, {
    realm_id: user.realm_id,
    event_type: "user_email_changed",
    acting_user_id: actor?.id ?? null,
    modified_user_id: user.id,
  });
  // Who may see the real address: with a public address, everyone; otherwise the user and admins.
  const audience = publicEmail ? await userStore.listActiveIds(tx.q, user.realm_id) : [user.id, ...(await userStore.listActiveAdminIds(tx.q, user.realm_id))];
  tx.sendEventOnCommit({ type: "realm_user", op: "update", person: { user_id: user.id, delivery_email: email } }, audience);
  if (publicEmail) await notifyUserUpdate(tx, user, { new_email: email });
}

// ---- deactivation and reactivation ----

/** DELETE /users/{id}. `target` comes from accessUserById(forAdministration). */
export async function checkDeactivateUser(tx: Tx, actor: User, target: User, realm: Realm, realmUrl: string, comment: string | undefined): Promise<void> {
  if (isOwner(target) && !isOwner(actor)) throw new OrganizationOwnerRequiredError();
  if (await isLastOwner(tx, target)) throw badRequest("Cannot deactivate the only organization owner");
  await doDeactivateUser(tx, target, actor);
  // An empty comment still asks for the email, without custom text.
  if (comment !== undefined) await queueDeactivationEmail(tx, target, realm, realmUrl, comment.trim());
}

/** DELETE /users/me */
export async function checkDeactivateOwnUser(tx: Tx, user: User): Promise<void> {
  if ((await userStore.countActiveInRealm(tx.q, user.realm_id)) === 1) throw new CannotDeactivateLastUserError(false);
  if (await isLastOwner(tx, user)) throw new CannotDeactivateLastUserError(true);
  await doDeactivateUser(tx, user, user);
}

/** Deactivates the account and the bots it owns; their API keys and sessions stop working at once. */
export async function doDeactivateUser(tx: Tx, user: User, actor: User | null, cascade = true): Promise<void> {
  if (!user.is_active) return;
  if (cascade) {
    for (const bot of await userStore.listActiveBotsOwnedBy(tx.q, user.id)) await doDeactivateUser(tx, bot, actor, false);
  }
  const before = await userIdsWhoCanAccessUser(tx.q, user);
  await userStore.setActive(tx.q, user.id, false);
  await auditLogStore.insert(tx.q, {
    realm_id: user.realm_id,
    event_type: "user_deactivated",
    acting_user_id: actor?.id ?? null,
    modified_user_id: user.id,
  });
  // Guests restricted by can_access_all_users_group who shared only a channel with him lose access.
  const after = await userIdsWhoCanAccessUser(tx.q, user);
  tx.sendEventOnCommit({ type: "realm_user", op: "update", person: { user_id: user.id, is_active: false } }, after);
  await sendAccessChangesAbout(tx, user, before, after);
  if (user.is_bot) await notifyBotUpdate(tx, user, { is_active: false });
  // Group member lists and subscriber lists hold active users only (Zulip 10).
  const audience = await userStore.listActiveIds(tx.q, user.realm_id);
  for (const groupId of await userStore.listDirectNamedGroupIds(tx.q, user.id)) {
    tx.sendEventOnCommit({ type: "user_group", op: "remove_members", group_id: groupId, user_ids: [user.id] }, audience);
  }
  await notifySubscriberPeers(tx, { id: user.realm_id }, user, "peer_remove");
  if (!user.is_bot) await expireInvitationsOfUser(tx, user);
}

async function queueDeactivationEmail(tx: Tx, user: User, realm: Realm, realmUrl: string, comment: string): Promise<void> {
  const lines = [`Your Zulip account on ${realmUrl} (${realm.name}) has been deactivated, and you will no longer be able to log in.`];
  if (comment !== "") lines.push("", "The administrators provided the following comment:", "", comment);
  await queueEmail(tx, {
    to: user.delivery_email,
    subject: `Your Zulip account on ${realmUrl} has been deactivated`,
    text: lines.join("\n") + "\n",
    template: "deactivation",
  });
}

/** POST /users/{id}/reactivate. `target` comes from accessUserById(forAdministration). */
export async function doReactivateUser(tx: Tx, user: User, actor: User | null): Promise<void> {
  if (user.is_active) return;
  if (user.is_mirror_dummy) throw badRequest("Cannot activate a placeholder account; ask the user to sign up, instead.");
  if (!user.is_bot) await checkUserLimit(tx, user.realm_id);
  const before = await userIdsWhoCanAccessUser(tx.q, user);
  await userStore.setActive(tx.q, user.id, true);
  await auditLogStore.insert(tx.q, {
    realm_id: user.realm_id,
    event_type: "user_reactivated",
    acting_user_id: actor?.id ?? null,
    modified_user_id: user.id,
  });
  const audience = await userIdsWhoCanAccessUser(tx.q, { ...user, is_active: 1 });
  // Those who knew him get the update; guests who regain access (a shared channel) get his data.
  const knew = new Set([...before, user.id]);
  tx.sendEventOnCommit(
    { type: "realm_user", op: "update", person: { user_id: user.id, is_active: true } },
    audience.filter((id) => knew.has(id)),
  );
  await sendAccessChangesAbout(tx, user, before, audience);
  if (user.is_bot) await notifyBotUpdate(tx, user, { is_active: true });
  for (const groupId of await userStore.listDirectNamedGroupIds(tx.q, user.id)) {
    tx.sendEventOnCommit({ type: "user_group", op: "add_members", group_id: groupId, user_ids: [user.id] }, audience);
  }
  await notifySubscriberPeers(tx, { id: user.realm_id }, user, "peer_add");
  await notifyExportConsent(tx, user);
}
