import * as z from "zod";
import type { Realm, User } from "../db/schema.js";
import type { Executor, Tx } from "../db/tx.js";
import { queueEmail } from "../email/queue.js";
import { badRequest } from "../lib/errors.js";
import { randomString } from "../lib/apiKeys.js";
import { ROLE_CODES } from "../models/roles.js";
import { auditLogStore } from "../store/auditLog.js";
import { confirmationStore } from "../store/confirmations.js";
import { type Invitation, InvitationStatus, invitationStore } from "../store/invitations.js";
import { realmStore } from "../store/realms.js";
import { userGroupStore } from "../store/userGroups.js";
import { userStore } from "../store/users.js";
import { parseJsonColumn } from "../util/jsonColumn.js";
import { nowSeconds } from "../util/time.js";
import { doCreateUser } from "./createUser.js";
import { emailValidationError, existingUserError, invitationLink, notifyInvitesChanged } from "./invitations.js";
import { sendNotificationBotDirectMessages } from "./notificationBot.js";
import { checkFullName } from "./users.js";

/**
 * Accepting an invitation (Zulip's /join/<key>/ and accounts_register for invited users): the
 * link's checks, a reusable link's address confirmation, then the account with the
 * invitation's role, channels and groups.
 */

/** Why an invitation link cannot be used; the page shows the message. */
export class InvitationLinkError extends Error {
  constructor(readonly reason: "invalid" | "expired") {
    super(reason === "invalid" ? "Whoops. We couldn't find your confirmation ID." : "Whoops. The confirmation link has expired or been deactivated.");
  }
}

/**
 * A reusable link asks for an address and mails a one-time link to it (Zulip's
 * create_preregistration_user + the "confirm your email" step), so nobody signs up with an
 * address that is not theirs. confirmations.data names the invitation and the address.
 */
const MULTIUSE_SIGNUP = "multiuse_signup";
/** Zulip's CONFIRMATION_LINK_DEFAULT_VALIDITY_DAYS. */
const SIGNUP_CONFIRMATION_SECONDS = 24 * 3600;
const signupConfirmationData = z.object({ invitation_id: z.number().int(), email: z.string() });

/** What a /join/<key>/ link stands for: an invitation, and the address the account gets (null: still to be asked, on a reusable link). */
export interface SignupLink {
  invitation: Invitation;
  realm: Realm;
  email: string | null;
  /** The one-time confirmation of a reusable link's address. */
  confirmationId?: number;
}

const KEY_FORMAT = /^[a-z0-9]{24}$/;

/** Zulip's get_object_from_key for invitations: an open, unexpired invitation of an active organization. */
export async function usableSignupLink(q: Executor, key: string): Promise<SignupLink> {
  if (!KEY_FORMAT.test(key)) throw new InvitationLinkError("invalid");
  const now = nowSeconds();
  const direct = await invitationStore.getByKey(q, key);
  if (direct) {
    const realm = await usableInvitationRealm(q, direct, now);
    return { invitation: direct, realm, email: direct.is_multiuse ? null : direct.email };
  }
  const confirmation = await confirmationStore.getByKey(q, MULTIUSE_SIGNUP, key);
  if (!confirmation) throw new InvitationLinkError("invalid");
  if (confirmation.used_at !== null || confirmation.expires_at < now) throw new InvitationLinkError("expired");
  const data = parseJsonColumn(signupConfirmationData, confirmation.data, "confirmations.data (multiuse sign-up)");
  const invitation = await invitationStore.getById(q, confirmation.realm_id, data.invitation_id, true);
  if (!invitation) throw new InvitationLinkError("invalid");
  const realm = await usableInvitationRealm(q, invitation, now);
  return { invitation, realm, email: data.email, confirmationId: confirmation.id };
}

async function usableInvitationRealm(q: Executor, invitation: Invitation, now: number): Promise<Realm> {
  const realm = await realmStore.getById(q, invitation.realm_id);
  if (!realm || realm.deactivated) throw new InvitationLinkError("invalid");
  const expired = invitation.expires_at !== null && invitation.expires_at < now;
  if (expired || invitation.status !== InvitationStatus.OPEN) throw new InvitationLinkError("expired");
  return realm;
}

/** An address for this organization that no account uses yet, or Zulip's text. */
async function checkNewAddress(q: Executor, realm: Realm, raw: string): Promise<string> {
  const email = raw.trim();
  if (email === "") throw badRequest("Please enter your email address.");
  const invalid = emailValidationError(realm, email);
  if (invalid) throw badRequest(invalid);
  await checkAddressFree(q, realm, email);
  return email;
}

/** Zulip's validate_email_not_already_in_realm texts for the sign-up form. */
async function checkAddressFree(q: Executor, realm: Realm, email: string): Promise<void> {
  const taken = await existingUserError(q, realm, email);
  if (taken) throw badRequest(taken[1] ? `The account for ${email} has been deactivated.` : `${email} already has an account.`);
}

/** A reusable link's first step: mails a one-time sign-up link to the address typed. Returns the address. */
export async function checkStartLinkSignup(tx: Tx, realmUrl: string, link: SignupLink, rawEmail: string): Promise<string> {
  const email = await checkNewAddress(tx.q, link.realm, rawEmail);
  const now = nowSeconds();
  const key = randomString(24).toLowerCase();
  await confirmationStore.insert(tx.q, {
    realm_id: link.realm.id,
    user_id: null,
    kind: MULTIUSE_SIGNUP,
    confirmation_key: key,
    data: JSON.stringify({ invitation_id: link.invitation.id, email }),
    created_at: now,
    expires_at: now + SIGNUP_CONFIRMATION_SECONDS,
  });
  const url = invitationLink(realmUrl, key);
  await queueEmail(tx, {
    to: email,
    subject: `Create your account in ${link.realm.name}`,
    text:
      `Hi there,\n\nYou asked to join ${link.realm.name} (${realmUrl}) with this email address.\n\n` +
      `To finish creating your account, open this link within 24 hours:\n    <${url}>\n\n` +
      `If you did not ask for this, you can ignore this email.\n`,
    template: "confirm_registration",
  });
  return email;
}

export interface SignupRequest {
  full_name: string;
  /** From hashPassword(), computed before the transaction; null for an account that signs in through an identity provider. */
  password_hash: string | null;
}

const idList = z.array(z.number().int());

/** The form's checks that need no password hash (run before hashing, and again in the transaction). */
export async function checkSignupFields(q: Executor, link: SignupLink, req: { full_name: string }): Promise<{ email: string; fullName: string }> {
  if (link.email === null) throw badRequest("Please enter your email address.");
  await checkAddressFree(q, link.realm, link.email);
  return { email: link.email, fullName: checkFullName(req.full_name) };
}

/**
 * Zulip's do_create_user + process_new_human_user for an invited user: the account (role,
 * channels, groups), the invitation used (an email invitation once; a link stays open, its
 * address confirmation is used), the address's other invitations revoked, the referrer told if
 * they asked.
 */
export async function doAcceptInvitation(tx: Tx, key: string, req: SignupRequest): Promise<User> {
  const link = await usableSignupLink(tx.q, key);
  const { invitation, realm } = link;
  const { email, fullName } = await checkSignupFields(tx.q, link, req);
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
  const used = invitation.is_multiuse
    ? await confirmationStore.markUsed(tx.q, link.confirmationId!, nowSeconds())
    : await invitationStore.closeOpen(tx.q, invitation.id, InvitationStatus.USED, user.id);
  if (!used) throw new InvitationLinkError("expired");
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
