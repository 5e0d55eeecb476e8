import * as z from "zod";
import {
  checkCreateMultiuseInvite,
  checkInviteUsers,
  checkResendInvite,
  checkRevokeEmailInvite,
  checkRevokeMultiuseInvite,
  INVITATION_LINK_VALIDITY_MINUTES,
  listInvitesForUser,
} from "../actions/invitations.js";
import { transaction } from "../appContext.js";
import { endpoint } from "../http/endpoint.js";
import { InvitationFailedError } from "../lib/errors.js";
import { p, pathParam } from "../http/params.js";
import { AccessSubject } from "../lib/streamAccess.js";
import { realmUrl } from "../lib/realms.js";
import { ROLE_CODES } from "../models/roles.js";

const inviteIdOf = (path: Record<string, string>) => pathParam.int(path.invite_id, "invite_id");
const idList = p.json(z.array(z.int()));
/** Minutes, or null for an invitation that never expires (bounded so the expiry stays a sane timestamp). */
const expiresInMinutes = p
  .json(
    z
      .int()
      .min(1)
      .max(100 * 365 * 24 * 60)
      .nullable(),
  )
  .default(INVITATION_LINK_VALIDITY_MINUTES);
const invitationParams = {
  invite_expires_in_minutes: expiresInMinutes,
  invite_as: p.intEnum(ROLE_CODES).default(400),
  group_ids: idList.default([]),
  include_realm_default_subscriptions: p.bool().default(false),
};

/** POST /invites */
export const inviteUsers = endpoint({
  auth: "user",
  params: {
    invitee_emails: p.string(),
    stream_ids: idList,
    notify_referrer_on_join: p.bool().default(true),
    ...invitationParams,
  },
  handler: async ({ ctx, user, realm, params }) => {
    const subject = new AccessSubject(user);
    const skipped = await transaction(ctx, (tx) =>
      checkInviteUsers(tx, realmUrl(ctx.config, realm), subject, realm, params.invitee_emails, params, params.notify_referrer_on_join),
    );
    if (skipped.length > 0) {
      throw new InvitationFailedError(
        "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
        skipped,
        { sentInvitations: true },
      );
    }
  },
});

/** POST /invites/multiuse */
export const createMultiuseInvite = endpoint({
  auth: "user",
  params: { stream_ids: idList.default([]), ...invitationParams },
  handler: async ({ ctx, user, realm, params }) => {
    const subject = new AccessSubject(user);
    return { invite_link: await transaction(ctx, (tx) => checkCreateMultiuseInvite(tx, realmUrl(ctx.config, realm), subject, realm, params)) };
  },
});

/** GET /invites */
export const getInvites = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, realm }) => ({ invites: await listInvitesForUser(ctx.db.kysely, realmUrl(ctx.config, realm), user) }),
});

/** DELETE /invites/{invite_id} */
export const revokeEmailInvite = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, path }) => {
    const id = inviteIdOf(path);
    await transaction(ctx, (tx) => checkRevokeEmailInvite(tx, user, id));
  },
});

/** DELETE /invites/multiuse/{invite_id} */
export const revokeMultiuseInvite = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, path }) => {
    const id = inviteIdOf(path);
    await transaction(ctx, (tx) => checkRevokeMultiuseInvite(tx, user, id));
  },
});

/** POST /invites/{invite_id}/resend */
export const resendEmailInvite = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, realm, path }) => {
    const id = inviteIdOf(path);
    await transaction(ctx, (tx) => checkResendInvite(tx, realmUrl(ctx.config, realm), user, realm, id));
  },
});
