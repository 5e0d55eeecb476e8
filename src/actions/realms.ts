import type { Realm } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { REALM_SETTING_DEFAULTS, withRealmSettings } from "../models/realmSettings.js";
import { SYSTEM_GROUPS } from "../models/systemGroups.js";
import { auditLogStore } from "../store/auditLog.js";
import { realmStore } from "../store/realms.js";
import { userGroupStore } from "../store/userGroups.js";
import { nowSeconds } from "../util/time.js";

export interface NewRealm {
  string_id: string;
  name: string;
  description?: string;
  /** Settings chosen at creation; the others start at Zulip's defaults (models/realmSettings.ts). */
  invite_required?: boolean;
  emails_restricted_to_domains?: boolean;
  enable_read_receipts?: boolean;
}

/**
 * Zulip's do_create_realm: read receipts start on in a closed organization (invitations required,
 * or email addresses restricted to its domains) unless the creator chose otherwise.
 */
function initialSettings(input: NewRealm): string {
  const inviteRequired = input.invite_required ?? REALM_SETTING_DEFAULTS.invite_required;
  const restricted = input.emails_restricted_to_domains ?? REALM_SETTING_DEFAULTS.emails_restricted_to_domains;
  return withRealmSettings(
    { settings: "{}" },
    {
      invite_required: inviteRequired,
      emails_restricted_to_domains: restricted,
      enable_read_receipts: input.enable_read_receipts ?? (inviteRequired || restricted),
    },
  );
}

/** Creates an organization with its system groups (no users yet). */
export async function doCreateRealm(tx: Tx, input: NewRealm): Promise<Realm> {
  const now = nowSeconds();
  const realm = await realmStore.insert(tx.q, {
    string_id: input.string_id,
    name: input.name,
    description: input.description ?? "",
    date_created: now,
    message_retention_days: null,
    settings: initialSettings(input),
  });
  // Widest first; each system group contains the next one (see models/systemGroups.ts).
  let previous: number | null = null;
  const created: number[] = [];
  for (const group of SYSTEM_GROUPS) {
    const row = await userGroupStore.insert(tx.q, {
      realm_id: realm.id,
      name: group.name,
      description: group.description,
      is_system_group: 1,
      date_created: now,
    });
    created.push(row.id);
    if (previous !== null && group.name !== "role:nobody") await userGroupStore.addSubgroups(tx.q, previous, [row.id]);
    previous = row.id;
  }
  await auditLogStore.insert(tx.q, { realm_id: realm.id, event_type: "realm_created" });
  return realm;
}
