import type { Realm, User } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { badRequest, InsufficientPermissionError, OrganizationAdministratorRequiredError, TargetUserDeactivatedError } from "./errors.js";
import { storedRealmGroupPermission } from "../models/realmSettings.js";
import { isAdmin, isGuest } from "../models/roles.js";
import { realmStore } from "../store/realms.js";
import { userAccessStore } from "../store/userAccess.js";
import { userGroupStore } from "../store/userGroups.js";
import { userStore } from "../store/users.js";
import { hasRealmPermission } from "./realmPermissions.js";
import { AccessSubject } from "./streamAccess.js";
import { canSeeDeliveryEmail } from "./userPayload.js";
import { foldCase } from "../util/foldCase.js";

/**
 * The one place that decides whether a user may look at or administer another account (Zulip's
 * access_user_by_id). A missing user and a user of another organization give the same error.
 */
export interface UserAccessOptions {
  allowDeactivated?: boolean;
  allowBots?: boolean;
  /** The caller wants to change the account: an administrator, or the owner of the bot. */
  forAdministration: boolean;
}

const noSuchUser = () => badRequest("No such user");

export async function accessUserById(q: Executor, viewer: User, userId: number, opts: UserAccessOptions): Promise<User> {
  const target = await userStore.getInRealm(q, viewer.realm_id, userId);
  if (!target) throw noSuchUser();
  checkUserAccess(viewer, target, opts);
  if (!opts.forAdministration) await checkCanAccessUser(q, viewer, target);
  return target;
}

/**
 * By Zulip API email, or by real email when the viewer may see it (Zulip 10.0, feature level 302).
 */
async function accessUserByEmail(q: Executor, viewer: User, email: string, opts: UserAccessOptions): Promise<User> {
  const target = await findUserByEmail(q, viewer, email);
  if (!target) throw noSuchUser();
  checkUserAccess(viewer, target, opts);
  if (!opts.forAdministration) await checkCanAccessUser(q, viewer, target);
  return target;
}

/**
 * The user of the viewer's realm with this API email, or with this real email if the viewer may
 * see it: a hidden address finds nobody (email_address_visibility), so no lookup tells it.
 */
export async function findUserByEmail(q: Executor, viewer: User, email: string): Promise<User | undefined> {
  const folded = foldCase(email);
  const candidates = await userStore.listByEmailInRealm(q, viewer.realm_id, email);
  return (
    candidates.find((u) => foldCase(u.email) === folded) ?? candidates.find((u) => foldCase(u.delivery_email) === folded && canSeeDeliveryEmail(viewer, u))
  );
}

/**
 * Zulip's can_access_all_users_group: null when the viewer may access every user, else the ids
 * of the humans they may access (every bot is accessible). Others appear as "Unknown user".
 */
export async function restrictedUserAccess(q: Executor, viewer: User, realm: Realm, options: { ignoreRecipientId?: number } = {}): Promise<Set<number> | null> {
  // The setting holds role:everyone (the default) or role:members, which every non-guest is in:
  // only a guest under a stored setting needs the group lookup.
  if (!isGuest(viewer) || storedRealmGroupPermission(realm, "can_access_all_users_group") === undefined) return null;
  if (await hasRealmPermission(q, new AccessSubject(viewer), realm, "can_access_all_users_group")) return null;
  return userAccessStore.accessibleUserIds(q, viewer, options);
}

/**
 * The active users of the realm who may access `target` (Zulip's get_user_ids_who_can_access_user):
 * the audience of events about that user. Access is symmetric, so a restricted guest may access
 * `target` exactly when `target` shares a channel, group DM or DM with him.
 */
export async function userIdsWhoCanAccessUser(q: Executor, target: User): Promise<number[]> {
  const everyone = await userStore.listActiveIds(q, target.realm_id);
  if (target.is_bot) return everyone;
  const realm = await realmStore.getById(q, target.realm_id);
  const stored = realm ? storedRealmGroupPermission(realm, "can_access_all_users_group") : undefined;
  if (stored === undefined || stored === (await userGroupStore.getSystemGroup(q, target.realm_id, "role:everyone")).id) return everyone;
  const accessible = await userAccessStore.accessibleUserIds(q, target);
  const guests = new Set((await userStore.listInRealm(q, target.realm_id)).filter((u) => isGuest(u)).map((u) => u.id));
  return everyone.filter((id) => !guests.has(id) || accessible.has(id));
}

export function canAccessUser(accessible: ReadonlySet<number> | null, target: User): boolean {
  return accessible === null || target.is_bot === 1 || accessible.has(target.id);
}

/** Reading an account the viewer may not access is refused as Zulip's access_user_common does. */
async function checkCanAccessUser(q: Executor, viewer: User, target: User): Promise<void> {
  if (target.is_bot || target.id === viewer.id) return;
  const realm = await realmStore.getById(q, viewer.realm_id);
  if (!realm || !canAccessUser(await restrictedUserAccess(q, viewer, realm), target)) throw new InsufficientPermissionError();
}

function checkUserAccess(viewer: User, target: User, opts: UserAccessOptions): User {
  if (target.is_bot && !opts.allowBots) throw noSuchUser();
  if (!target.is_active && !opts.allowDeactivated) throw new TargetUserDeactivatedError();
  if (opts.forAdministration && !canAdministerUser(viewer, target)) throw new InsufficientPermissionError();
  return target;
}

/** Zulip's can_admin_user: organization administrators, and a bot's owner for that bot. */
function canAdministerUser(viewer: User, target: User): boolean {
  return (target.is_bot === 1 && target.bot_owner_id === viewer.id) || isAdmin(viewer);
}

export function requireAdministrator(user: User): void {
  if (!isAdmin(user)) throw new OrganizationAdministratorRequiredError();
}

/** `/users/{user_id}` and `/users/{email}` share one path segment (see pathParam.userIdOrEmail). */
export function accessUserByIdOrEmail(q: Executor, viewer: User, idOrEmail: number | string, opts: UserAccessOptions): Promise<User> {
  return typeof idOrEmail === "number" ? accessUserById(q, viewer, idOrEmail, opts) : accessUserByEmail(q, viewer, idOrEmail, opts);
}
