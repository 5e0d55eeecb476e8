import { z } from "zod";
import type { Realm, User } from "../db/schema.js";
import type { Executor, Tx } from "../db/tx.js";
import { badRequest } from "../http/errors.js";
import { ROLE_CODES } from "../models/roles.js";
import { auditLogStore } from "../store/auditLog.js";
import { type Invitation, InvitationStatus, invitationStore } from "../store/invitations.js";
import { realmStore } from "../store/realms.js";
import { userGroupStore } from "../store/userGroups.js";
import { userStore } from "../store/users.js";
import { parseJsonColumn } from "../util/jsonColumn.js";
import { nowSeconds } from "../util/time.js";
import { doCreateUser } from "./createUser.js";
import { emailValidationError, existingUserError, notifyInvitesChanged } from "./invitations.js";
import { sendNotificationBotDirectMessages } from "./notificationBot.js";
import { checkFullName } from "./users.js";

/**
 * Accepting an invitation (Zulip's /join/<key>/ and accounts_register for invited users): the
 * link's checks, then the account with the invitation's role, channels and groups.
 */

/** Why an invitation link cannot be used; the page shows the message. */
export class InvitationLinkError extends Error {
  constructor(readonly reason: "invalid" | "expired") {
    super(reason === "invalid" ? "Whoops. We couldn't find your confirmation ID." : "Whoops. The confirmation link has expired or been deactivated.");
  }
}

/** Zulip's get_object_from_key for invitations: an open, unexpired invitation of an active organization. */
export async function usableInvitation(q: Executor, key: string): Promise<{ invitation: Invitation; realm: Realm }> {
  const invitation = /^[a-z0-9]{24}$/.test(key) ? await invitationStore.getByKey(q, key) : undefined;
  const realm = invitation && (await realmStore.getById(q, invitation.realm_id));
  if (!invitation || !realm || realm.deactivated) throw new InvitationLinkError("invalid");
  const expired = invitation.expires_at !== null && invitation.expires_at < nowSeconds();
  if (expired || invitation.status !== InvitationStatus.OPEN) throw new InvitationLinkError("expired");
  return { invitation, realm };
}

export interface SignupRequest {
  /** Typed by the visitor of a reusable link; an email invitation's own address otherwise. */
  email?: string;
  full_name: string;
  /** From hashPassword(), computed before the transaction. */
  password_hash: string;
}

const idList = z.array(z.number().int());

/** The form's checks that need no password hash (run before hashing, and again in the transaction). */
export async function checkSignupFields(q: Executor, invitation: Invitation, realm: Realm, req: { email?: string; full_name: string }): Promise<{ email: string; fullName: string }> {
  const email = invitation.is_multiuse ? (req.email ?? "").trim() : invitation.email!;
  if (invitation.is_multiuse) {
    if (email === "") throw badRequest("Please enter your email address.");
    const invalid = emailValidationError(realm, email);
    if (invalid) throw badRequest(invalid);
  }
  const taken = await existingUserError(q, realm, email);
  if (taken) throw badRequest(taken[1] ? `The account for ${email} has been deactivated.` : `${email} already has an account.`);
  return { email, fullName: checkFullName(req.full_name) };
}

/**
 * Zulip's do_create_user + process_new_human_user for an invited user: the account (role,
 * channels, groups), the invitation used (an email invitation once; a link stays open), the
 * address's other invitations revoked, the referrer told if they asked.
 */
export async function doAcceptInvitation(tx: Tx, key: string, req: SignupRequest): Promise<User> {
  const { invitation, realm } = await usableInvitation(tx.q, key);
  const { email, fullName } = await checkSignupFields(tx.q, invitation, realm, req);
  const role = (ROLE_CODES as readonly number[]).includes(invitation.invited_as) ? invitation.invited_as : 400;
  const streamIds = parseJsonColumn(idList, invitation.stream_ids, "invitations.stream_ids");
  const user = await doCreateUser(tx, realm, {
    email,
    full_name: fullName,
    password_hash: req.password_hash,
    role,
    channels: { stream_ids: streamIds, include_default_channels: invitation.include_realm_default_subscriptions === 1 },
    acting_user_id: invitation.referred_by,
  });
  if (!invitation.is_multiuse && !(await invitationStore.closeOpen(tx.q, invitation.id, InvitationStatus.USED, user.id))) {
    throw new InvitationLinkError("expired");
  }
  await addToInvitedGroups(tx, realm, user, parseJsonColumn(idList, invitation.group_ids, "invitations.group_ids"), invitation.referred_by);
  const revokedReferrers = await invitationStore.revokeOpenForEmail(tx.q, realm.id, email);
  const referrers = invitation.is_multiuse ? revokedReferrers : [invitation.referred_by, ...revokedReferrers];
  if (referrers.length > 0) await notifyInvitesChanged(tx, realm.id, [...new Set(referrers)]);
  if (!invitation.is_multiuse && invitation.notify_referrer_on_join) await notifyReferrer(tx, realm, invitation.referred_by, user);
  return user;
}

/** bulk_add_members_to_user_groups: the invitation's groups that are still active named groups. */
async function addToInvitedGroups(tx: Tx, realm: Realm, user: User, groupIds: number[], actorId: number): Promise<void> {
  if (groupIds.length === 0) return;
  const groups = (await userGroupStore.listNamedByIds(tx.q, realm.id, groupIds)).filter((g) => !g.deactivated && !g.is_system_group);
  if (groups.length === 0) return;
  const audience = await userStore.listActiveIds(tx.q, realm.id);
  for (const group of groups) {
    await userGroupStore.addMembers(tx.q, group.id, [user.id]);
    await auditLogStore.insert(tx.q, {
      realm_id: realm.id,
      event_type: "user_group_direct_user_membership_added",
      acting_user_id: actorId,
      modified_user_id: user.id,
      modified_group_id: group.id,
    });
    tx.sendEventOnCommit({ type: "user_group", op: "add_members", group_id: group.id, user_ids: [user.id] }, audience);
  }
}

/** Zulip's notice to the referrer, from the Notification Bot. */
async function notifyReferrer(tx: Tx, realm: Realm, referrerId: number, user: User): Promise<void> {
  const referrer = await userStore.getById(tx.q, referrerId);
  if (!referrer || !referrer.is_active) return;
  const content = `@_**${user.full_name}|${user.id}** accepted your invitation to join Zulip!`;
  await sendNotificationBotDirectMessages(tx, realm, [{ user: referrer, content }]);
}
