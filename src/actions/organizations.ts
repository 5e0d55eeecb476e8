import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { Role } from "../models/roles.js";
import { realmStore } from "../store/realms.js";
import { doCreateUser } from "./createUser.js";
import { doSetUpNewRealm } from "./onboarding.js";
import { doCreateRealm } from "./realms.js";

/** The string id asked for already names an organization. */
export class OrganizationExistsError extends Error {
  constructor(readonly stringId: string) {
    super(`an organization with string id "${stringId}" already exists`);
  }
}

export interface NewOrganization {
  /** Checked by the caller (models/subdomains.ts). */
  string_id: string;
  name: string;
  owner: { email: string; full_name: string; password_hash: string | null };
}

/**
 * A new organization with its owner (Zulip's do_create_realm + do_create_user(realm_creation=True)),
 * set up as Zulip sets up a new organization (channels, Welcome Bot's messages). Used by
 * `parley create-organization` and by the sign-up page (/new/), in the caller's transaction.
 */
export async function doCreateOrganization(tx: Tx, input: NewOrganization): Promise<{ realm: Realm; owner: User }> {
  if (await realmStore.getByStringId(tx.q, input.string_id)) throw new OrganizationExistsError(input.string_id);
  const created = await doCreateRealm(tx, { string_id: input.string_id, name: input.name });
  const owner = await doCreateUser(tx, created, {
    email: input.owner.email,
    full_name: input.owner.full_name,
    password_hash: input.owner.password_hash,
    role: Role.OWNER,
    can_create_users: true,
    can_change_user_emails: true,
  });
  const realm = await doSetUpNewRealm(tx, created, owner);
  return { realm, owner };
}
