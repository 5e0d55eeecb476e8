import type { Realm, User } from "../db/schema.js";
import type { Executor, Tx } from "../db/tx.js";
import { storedRealmGroupPermission } from "../models/realmSettings.js";
import { isGuest } from "../models/roles.js";
import { userStore } from "../store/users.js";
import { restrictedUserAccess } from "./access.js";
import type { SenderAccess } from "./messagePayload.js";
import { buildUserPayload, INACCESSIBLE_USER_NAME, inaccessibleUserPayload } from "./userPayload.js";

/**
 * The events that tell a guest restricted by can_access_all_users_group which users he may
 * access: Zulip sends `realm_user` op `add` (the user's real data) when a guest gains access to a
 * user — a channel or a direct message they now share (send_user_creation_events_on_adding_subscriptions,
 * get_recipients_for_user_creation_events) — and op `remove` with "Unknown user" when he loses it
 * (send_user_remove_events_on_removing_subscriptions). An action takes a snapshot of the access
 * of the guests it may affect before it writes, and sends the differences after.
 */
export type GuestAccessSnapshot = Map<number, Set<number>>;

const NO_GUESTS: GuestAccessSnapshot = new Map();

/** Whether the organization restricts anyone's access to users (a stored can_access_all_users_group). */
export function userAccessMayBeRestricted(realm: Realm): boolean {
  return storedRealmGroupPermission(realm, "can_access_all_users_group") !== undefined;
}

/** The restricted guests among `userIds`, with the users each may access now. No query when nobody is restricted. */
export async function snapshotGuestAccess(
  q: Executor,
  realm: Realm,
  userIds: Iterable<number>,
  options: { ignoreRecipientId?: number } = {},
): Promise<GuestAccessSnapshot> {
  if (!userAccessMayBeRestricted(realm)) return NO_GUESTS;
  const guests = (await userStore.listByIds(q, realm.id, [...new Set(userIds)])).filter((u) => isGuest(u) && u.is_active);
  const snapshot: GuestAccessSnapshot = new Map();
  for (const guest of guests) {
    const accessible = await restrictedUserAccess(q, guest, realm, options);
    if (accessible !== null) snapshot.set(guest.id, accessible);
  }
  return snapshot;
}

/** `realm_user` add for the users each guest of the snapshot may now access, remove for those he no longer may. */
export async function sendGuestAccessChanges(tx: Tx, realm: Realm, before: GuestAccessSnapshot): Promise<void> {
  if (before.size === 0) return;
  const guests = await userStore.listByIds(tx.q, realm.id, [...before.keys()]);
  for (const guest of guests) {
    const after = await restrictedUserAccess(tx.q, guest, realm);
    if (after === null) continue;
    const previously = before.get(guest.id)!;
    const gained = [...after].filter((id) => !previously.has(id));
    const lost = [...previously].filter((id) => !after.has(id));
    for (const user of (await userStore.listByIds(tx.q, realm.id, gained)).filter((u) => !u.is_bot && u.is_active)) {
      tx.sendEventOnCommit(
        { type: "realm_user", op: "add", person: buildUserPayload(guest, user, { clientGravatar: false, profileData: new Map([[user.id, {}]]) }) },
        [guest.id],
      );
    }
    for (const userId of lost) {
      tx.sendEventOnCommit({ type: "realm_user", op: "remove", person: { user_id: userId, full_name: INACCESSIBLE_USER_NAME } }, [guest.id]);
    }
  }
}

/**
 * The "Unknown user" `realm_user` add Zulip's notify_created_user sends about a new user to those
 * who may not access him, unless their client declared `user_list_incomplete`.
 */
export function sendInaccessibleUserCreated(tx: Tx, user: User, realmUrl: string, userIds: readonly number[]): void {
  if (userIds.length === 0) return;
  tx.sendEventOnCommit({ type: "realm_user", op: "add", person: inaccessibleUserPayload(user.id, realmUrl), unless_capability: "user_list_incomplete" }, [
    ...userIds,
  ]);
}

/** What message payloads need to hide the senders `viewer` may not access (null: he may access everyone). */
export async function senderAccessFor(q: Executor, viewer: User, realm: Realm, realmUrl: string): Promise<SenderAccess | null> {
  if (!userAccessMayBeRestricted(realm)) return null;
  const accessible = await restrictedUserAccess(q, viewer, realm);
  return accessible === null ? null : { accessible, realmUrl };
}

/**
 * After a change to whether `user` is active: `realm_user` remove ("Unknown user") to the users
 * who could access him before and no longer can (guests who shared only a channel with a user now
 * deactivated: Zulip's send_events_for_user_deactivation), and add with his data to those who now
 * can (the same guests at his reactivation, whose clients had forgotten him).
 */
export async function sendAccessChangesAbout(tx: Tx, user: User, before: readonly number[], after: readonly number[]): Promise<void> {
  const had = new Set(before);
  const has = new Set(after);
  const lost = before.filter((id) => !has.has(id) && id !== user.id);
  if (lost.length > 0) tx.sendEventOnCommit({ type: "realm_user", op: "remove", person: { user_id: user.id, full_name: INACCESSIBLE_USER_NAME } }, lost);
  const gained = after.filter((id) => !had.has(id) && id !== user.id);
  if (gained.length === 0) return;
  const current = (await userStore.getById(tx.q, user.id)) ?? user;
  for (const viewer of await userStore.listByIds(tx.q, user.realm_id, gained)) {
    const person = buildUserPayload(viewer, current, { clientGravatar: false, profileData: new Map([[user.id, {}]]) });
    tx.sendEventOnCommit({ type: "realm_user", op: "add", person }, [viewer.id]);
  }
}
