import * as z from "zod";
import type { Realm, User } from "../db/schema.js";
import type { Executor, Tx } from "../db/tx.js";
import { queueEmail } from "../email/queue.js";
import { ApiError, badRequest, InsufficientPermissionError, InvitationFailedError, OrganizationOwnerRequiredError } from "../lib/errors.js";
import { randomString } from "../lib/apiKeys.js";
import { hasRealmPermission } from "../lib/realmPermissions.js";
import { type AccessSubject, accessStreamById, canSubscribeOthers } from "../lib/streamAccess.js";
import { accessUserGroupForUpdate, requireMemberOrAdmin } from "../lib/userGroupAccess.js";
import { realmSettings } from "../models/realmSettings.js";
import { isAdmin, isOwner, Role } from "../models/roles.js";
import { SYSTEM_BOTS } from "../models/systemBots.js";
import { auditLogStore } from "../store/auditLog.js";
import { type Invitation, InvitationStatus, invitationStore } from "../store/invitations.js";
import { userStore } from "../store/users.js";
import { nowSeconds } from "../util/time.js";
import { streamStore } from "../store/streams.js";
import { checkUserLimit } from "./realmLimits.js";

/**
 * Invitations (Zulip 10.2's zerver/views/invite.py and zerver/actions/invites.py): email
 * invitations (one address each, used once) and reusable links, who may create and manage them,
 * the invitation email, and the invites_changed event. Accepting one: invitationSignup.ts.
 */

/** Zulip's INVITATION_LINK_VALIDITY_DAYS (10) in minutes: the default expiry. */
export const INVITATION_LINK_VALIDITY_MINUTES = 10 * 24 * 60;
/** Zulip's INVITES_MIN_USER_AGE_DAYS: in an organization anyone may join, newer members may not invite. */
const INVITES_MIN_USER_AGE_SECONDS = 3 * 24 * 3600;
/** Zulip's confirmation keys: 24 characters of [a-z0-9]. */
const KEY_LENGTH = 24;

export interface InvitationSpec {
  invite_expires_in_minutes: number | null;
  invite_as: number;
  stream_ids: number[];
  group_ids: number[];
  include_realm_default_subscriptions: boolean;
}

export function invitationLink(realmUrl: string, key: string): string {
  return `${realmUrl}/join/${key}/`;
}

/** Zulip's check_role_based_permissions: owners are invited by owners; other privileged roles (and others' invitations) need an administrator. */
function checkRoleBasedPermissions(invitedAs: number, user: User, requireAdmin: boolean): void {
  if (invitedAs === Role.OWNER && !isOwner(user)) throw new OrganizationOwnerRequiredError();
  if (requireAdmin && !isAdmin(user)) throw badRequest("Must be an organization administrator");
}

/** Who may create an invitation: the realm permission, and the role to invite as. */
async function checkMayInvite(
  q: Executor,
  subject: AccessSubject,
  realm: Realm,
  permission: "can_invite_users_group" | "create_multiuse_invite_group",
  invitedAs: number,
): Promise<void> {
  requireMemberOrAdmin(subject.user);
  if (!(await hasRealmPermission(q, subject, realm, permission))) throw new InsufficientPermissionError();
  checkRoleBasedPermissions(invitedAs, subject.user, invitedAs === Role.OWNER || invitedAs === Role.ADMINISTRATOR || invitedAs === Role.MODERATOR);
}

/**
 * Zulip's access_streams_for_invite: channels the inviter can read; beyond the organization's
 * default channels, the right to subscribe others to them (feature level 342).
 */
async function accessStreamsForInvite(q: Executor, subject: AccessSubject, realm: Realm, streamIds: number[]): Promise<number[]> {
  const ids = [...new Set(streamIds)];
  if (ids.length === 0) return [];
  const defaults = await streamStore.defaultStreamIds(q, realm.id);
  const accesses = [];
  for (const id of ids) {
    try {
      accesses.push(await accessStreamById(q, subject, id, "content", { requireActive: true }));
    } catch (error) {
      if (error instanceof ApiError) throw badRequest(`Invalid channel ID ${id}. No invites were sent.`);
      throw error;
    }
  }
  for (const access of accesses) {
    if (defaults.has(access.stream.id)) continue;
    if (!(await canSubscribeOthers(q, subject, realm, access))) throw badRequest("You do not have permission to subscribe other users to channels.");
  }
  return ids;
}

/** Zulip's access_user_groups_for_invite: groups the inviter may add members to. */
async function accessGroupsForInvite(q: Executor, subject: AccessSubject, realm: Realm, groupIds: number[]): Promise<number[]> {
  const ids = [...new Set(groupIds)];
  for (const id of ids) await accessUserGroupForUpdate(q, subject, realm, id, "can_add_members_group");
  return ids;
}

const emailSchema = z.email();
const SYSTEM_BOT_EMAILS = new Set(SYSTEM_BOTS.map((b) => b.email.toLowerCase()));

/**
 * Zulip's validate_email_is_valid with the realm's validator: the reason the address cannot be
 * invited to (or sign up in) the organization, or null. Parley keeps no list of allowed domains
 * (realm_domains is empty), so a realm restricted to its domains accepts none.
 */
export function emailValidationError(realm: Realm, email: string): string | null {
  if (!emailSchema.safeParse(email).success || email.length > 254) return "Invalid address.";
  if (realmSettings(realm).emails_restricted_to_domains) {
    if (email.slice(0, email.lastIndexOf("@")).includes("+")) return "Email addresses containing + are not allowed.";
    return "Outside your domain.";
  }
  return null;
}

/** Zulip's get_existing_user_errors: [reason, deactivated] for an address that is taken. */
export async function existingUserError(q: Executor, realm: Realm, email: string): Promise<[string, boolean] | null> {
  if (SYSTEM_BOT_EMAILS.has(email.toLowerCase())) return ["Reserved for system bots.", false];
  const existing = await userStore.getByEmail(q, realm.id, email);
  if (!existing) return null;
  return existing.is_active ? ["Already has an account.", false] : ["Account has been deactivated.", true];
}

/** Zulip's get_invitee_emails_set: split on commas and newlines, "Name <email>" reduced to the address. */
function parseInviteeEmails(raw: string): string[] {
  const emails = new Set<string>();
  for (const part of raw.split(/[,\n]/)) {
    const named = /<(.*)>/.exec(part);
    emails.add((named?.[1] ?? part).trim());
  }
  return [...emails];
}

/** Zulip's notify_invites_changed: administrators and the invitations' referrers refetch GET /invites. */
export async function notifyInvitesChanged(tx: Tx, realmId: number, referrerIds: readonly number[]): Promise<void> {
  const audience = new Set(await userStore.listActiveAdminIds(tx.q, realmId));
  for (const id of referrerIds) audience.add(id);
  tx.sendEventOnCommit({ type: "invites_changed" }, [...audience]);
}

function expiresAt(now: number, minutes: number | null): number | null {
  return minutes === null ? null : now + minutes * 60;
}

/**
 * POST /invites (invite_users_backend + do_invite_users): every address checked first; invalid
 * ones fail the whole request, taken ones are skipped. Returns the skipped addresses (the route
 * reports them after the invitations to the others are committed).
 */
export async function checkInviteUsers(
  tx: Tx,
  realmUrl: string,
  subject: AccessSubject,
  realm: Realm,
  rawEmails: string,
  spec: InvitationSpec,
  notifyReferrerOnJoin: boolean,
): Promise<Array<[string, string, boolean]>> {
  const user = subject.user;
  await checkMayInvite(tx.q, subject, realm, "can_invite_users_group", spec.invite_as);
  if (rawEmails === "") throw badRequest("You must specify at least one email address.");
  const emails = parseInviteeEmails(rawEmails);
  const streamIds = await accessStreamsForInvite(tx.q, subject, realm, spec.stream_ids);
  const groupIds = await accessGroupsForInvite(tx.q, subject, realm, spec.group_ids);

  const now = nowSeconds();
  if (!realmSettings(realm).invite_required && user.date_joined > now - INVITES_MIN_USER_AGE_SECONDS && !isAdmin(user)) {
    throw new InvitationFailedError(
      "Your account is too new to send invites for this organization. Ask an organization admin, or a more experienced user.",
      [],
      {
        sentInvitations: false,
      },
    );
  }
  const errors: Array<[string, string, boolean]> = [];
  const skipped: Array<[string, string, boolean]> = [];
  const good: string[] = [];
  for (const email of emails) {
    const invalid = emailValidationError(realm, email);
    if (invalid) {
      errors.push([email, invalid, false]);
      continue;
    }
    const taken = await existingUserError(tx.q, realm, email);
    if (taken) skipped.push([email, ...taken]);
    else good.push(email);
  }
  if (errors.length > 0) {
    throw new InvitationFailedError("Some emails did not validate, so we didn't send any invitations.", [...errors, ...skipped], { sentInvitations: false });
  }
  if (skipped.length === emails.length) throw new InvitationFailedError("We weren't able to invite anyone.", skipped, { sentInvitations: false });
  await checkUserLimit(tx, realm.id, { invitations: good.length });

  for (const email of good) {
    const invitation = await invitationStore.insert(tx.q, {
      realm_id: realm.id,
      referred_by: user.id,
      is_multiuse: 0,
      email,
      confirmation_key: randomString(KEY_LENGTH).toLowerCase(),
      invited_as: spec.invite_as,
      include_realm_default_subscriptions: spec.include_realm_default_subscriptions ? 1 : 0,
      notify_referrer_on_join: notifyReferrerOnJoin ? 1 : 0,
      stream_ids: JSON.stringify(streamIds),
      group_ids: JSON.stringify(groupIds),
      invited_at: now,
      expires_at: expiresAt(now, spec.invite_expires_in_minutes),
    });
    await queueInvitationEmail(tx, realmUrl, realm, user, invitation);
  }
  await notifyInvitesChanged(tx, realm.id, [user.id]);
  return skipped;
}

/** POST /invites/multiuse (generate_multiuse_invite_backend): returns the link. */
export async function checkCreateMultiuseInvite(tx: Tx, realmUrl: string, subject: AccessSubject, realm: Realm, spec: InvitationSpec): Promise<string> {
  await checkMayInvite(tx.q, subject, realm, "create_multiuse_invite_group", spec.invite_as);
  const streamIds = await accessStreamsForInvite(tx.q, subject, realm, spec.stream_ids);
  const groupIds = await accessGroupsForInvite(tx.q, subject, realm, spec.group_ids);
  const now = nowSeconds();
  const invitation = await invitationStore.insert(tx.q, {
    realm_id: realm.id,
    referred_by: subject.user.id,
    is_multiuse: 1,
    email: null,
    confirmation_key: randomString(KEY_LENGTH).toLowerCase(),
    invited_as: spec.invite_as,
    include_realm_default_subscriptions: spec.include_realm_default_subscriptions ? 1 : 0,
    notify_referrer_on_join: 0,
    stream_ids: JSON.stringify(streamIds),
    group_ids: JSON.stringify(groupIds),
    invited_at: now,
    expires_at: expiresAt(now, spec.invite_expires_in_minutes),
  });
  await notifyInvitesChanged(tx, realm.id, [subject.user.id]);
  return invitationLink(realmUrl, invitation.confirmation_key);
}

/** One entry of GET /invites (the OpenAPI Invite). */
function invitePayload(realmUrl: string, row: Invitation): Record<string, unknown> {
  const common = { id: row.id, invited_by_user_id: row.referred_by, invited: row.invited_at, expiry_date: row.expires_at, invited_as: row.invited_as };
  if (row.is_multiuse) return { ...common, is_multiuse: true, link_url: invitationLink(realmUrl, row.confirmation_key) };
  return { ...common, email: row.email, is_multiuse: false, notify_referrer_on_join: row.notify_referrer_on_join === 1 };
}

/** GET /invites (do_get_invites_controlled_by_user): administrators see every open invitation, others their own. */
export async function listInvitesForUser(q: Executor, realmUrl: string, user: User): Promise<Array<Record<string, unknown>>> {
  requireMemberOrAdmin(user);
  const rows = await invitationStore.listValid(q, user.realm_id, nowSeconds(), isAdmin(user) ? undefined : user.id);
  return rows.map((row) => invitePayload(realmUrl, row));
}

/** An invitation the user may revoke or resend: their own, or any as an administrator (owners for owner invitations). */
async function accessInvitation(q: Executor, user: User, id: number, isMultiuse: boolean): Promise<Invitation> {
  requireMemberOrAdmin(user);
  const invitation = await invitationStore.getById(q, user.realm_id, id, isMultiuse);
  if (!invitation) throw badRequest("No such invitation");
  if (invitation.referred_by !== user.id) checkRoleBasedPermissions(invitation.invited_as, user, true);
  return invitation;
}

/** An email invitation that was used or revoked is no longer one to manage (it is not listed either). */
function requireOpenEmailInvitation(invitation: Invitation, now: number): void {
  const expired = invitation.expires_at !== null && invitation.expires_at < now;
  if (invitation.status !== InvitationStatus.OPEN || expired) throw badRequest("No such invitation");
}

/** DELETE /invites/{id} (revoke_user_invite, do_revoke_user_invite). */
export async function checkRevokeEmailInvite(tx: Tx, user: User, id: number): Promise<void> {
  const invitation = await accessInvitation(tx.q, user, id, false);
  if (invitation.status !== InvitationStatus.OPEN) throw badRequest("No such invitation");
  await doRevokeInvitation(tx, user, invitation);
}

/** DELETE /invites/multiuse/{id} (revoke_multiuse_invite, do_revoke_multi_use_invite). */
export async function checkRevokeMultiuseInvite(tx: Tx, user: User, id: number): Promise<void> {
  const invitation = await accessInvitation(tx.q, user, id, true);
  if (invitation.status === InvitationStatus.REVOKED) throw badRequest("Invitation has already been revoked");
  await doRevokeInvitation(tx, user, invitation);
}

async function doRevokeInvitation(tx: Tx, actor: User, invitation: Invitation): Promise<void> {
  await invitationStore.revoke(tx.q, invitation.id);
  await auditLogStore.insert(tx.q, {
    realm_id: invitation.realm_id,
    event_type: "invitation_revoked",
    acting_user_id: actor.id,
    extra_data: { invitation_id: invitation.id, is_multiuse: invitation.is_multiuse === 1 },
  });
  await notifyInvitesChanged(tx, invitation.realm_id, [invitation.referred_by]);
}

/** POST /invites/{id}/resend (resend_user_invite_email): the same link, sent again. */
export async function checkResendInvite(tx: Tx, realmUrl: string, user: User, realm: Realm, id: number): Promise<void> {
  const invitation = await accessInvitation(tx.q, user, id, false);
  requireOpenEmailInvitation(invitation, nowSeconds());
  const referrer = invitation.referred_by === user.id ? user : await userStore.getById(tx.q, invitation.referred_by);
  await queueInvitationEmail(tx, realmUrl, realm, referrer ?? user, invitation);
}

/** Zulip's revoke_invites_generated_by_user (on deactivation): the user's open invitations expire now. */
export async function expireInvitationsOfUser(tx: Tx, user: User): Promise<void> {
  // One second back: an invitation is usable through its expiry second.
  if ((await invitationStore.expireOpenByReferrer(tx.q, user.id, nowSeconds() - 1)) > 0) await notifyInvitesChanged(tx, user.realm_id, []);
}

/** Zulip's invitation email (templates/zerver/emails/invitation). */
async function queueInvitationEmail(tx: Tx, realmUrl: string, realm: Realm, referrer: User, invitation: Invitation): Promise<void> {
  const link = invitationLink(realmUrl, invitation.confirmation_key);
  const expiry = invitation.expires_at === null ? "" : `This invitation expires on ${new Date(invitation.expires_at * 1000).toUTCString()}.\n\n`;
  await queueEmail(tx, {
    to: invitation.email!,
    subject: `${referrer.full_name} has invited you to join ${realm.name}`,
    text:
      `Hi there,\n\n` +
      `${referrer.full_name} (${referrer.delivery_email}) wants you to join them in ${realm.name} (${realmUrl}).\n\n` +
      `To get started, open the link below.\n    <${link}>\n\n` +
      expiry,
    template: "invitation",
  });
}
