import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { ApiError } from "../lib/errors.js";
import { realmSettings } from "../models/realmSettings.js";
import { InvitationStatus, invitationStore } from "../store/invitations.js";
import { nowSeconds } from "../util/time.js";
import { doCreateUser } from "./createUser.js";
import { doAcceptInvitation } from "./invitationSignup.js";
import { emailValidationError, existingUserError } from "./invitations.js";
import { checkFullName } from "./users.js";

/**
 * The first sign-in through an identity provider of someone without an account (Zulip's
 * maybe_send_to_registration with the address the provider vouched for): an account when the
 * organization lets the address join, with a pending invitation's role, channels and groups if
 * one was sent to it. Zulip shows a registration form first; Parley creates the account at once
 * with the name the provider gave (no password: the person signs in through the provider).
 */

/** Why the address cannot have an account here; the page shows the message. */
export class ExternalSignupRefused extends ApiError {
  constructor(message: string) {
    super(message, { code: "BAD_REQUEST", status: 403 });
  }
}

export async function doExternalSignup(tx: Tx, realm: Realm, identity: { email: string; fullName: string | null }, realmUrl: string): Promise<User> {
  const email = identity.email;
  const invalid = emailValidationError(realm, email);
  if (invalid) throw new ExternalSignupRefused(`${email}: ${invalid}`);
  const taken = await existingUserError(tx.q, realm, email);
  if (taken) throw new ExternalSignupRefused(taken[1] ? `The account for ${email} has been deactivated.` : `${email} already has an account.`);
  const fullName = nameFor(identity);
  // The latest one, as Zulip's filter_to_valid_prereg_users(...).latest("invited_at").
  const invitation = (await invitationStore.listValid(tx.q, realm.id, nowSeconds()))
    .filter((i) => !i.is_multiuse && i.status === InvitationStatus.OPEN && i.email?.toLowerCase() === email.toLowerCase())
    .at(-1);
  if (invitation) return doAcceptInvitation(tx, invitation.confirmation_key, { full_name: fullName, password_hash: null });
  // Zulip's HomepageForm: "Please request an invite for {email} from the organization administrator."
  if (realmSettings(realm).invite_required) throw new ExternalSignupRefused(`Please request an invite for ${email} from the organization administrator.`);
  return doCreateUser(tx, realm, { email, full_name: fullName, password_hash: null, realmUrl });
}

/** The provider's name for the person if it is a valid full name, else the address's local part. */
function nameFor(identity: { email: string; fullName: string | null }): string {
  const localPart = identity.email.slice(0, identity.email.lastIndexOf("@"));
  for (const candidate of [identity.fullName, localPart, "New user"]) {
    if (!candidate) continue;
    try {
      return checkFullName(candidate);
    } catch {
      // try the next one
    }
  }
  return "New user";
}
