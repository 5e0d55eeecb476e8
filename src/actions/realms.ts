import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { REALM_SETTING_DEFAULTS, withRealmSettings } from "../models/realmSettings.js";
import { SYSTEM_GROUPS } from "../models/systemGroups.js";
import { auditLogStore } from "../store/auditLog.js";
import { realmStore } from "../store/realms.js";
import { sessionStore } from "../store/sessions.js";
import { userGroupStore } from "../store/userGroups.js";
import { userStore } from "../store/users.js";
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

// ---- deactivation and reactivation (Zulip's do_deactivate_realm / do_reactivate_realm) ----

/**
 * Deactivates the organization: its API keys stop working (401 REALM_DEACTIVATED), its users' web
 * sessions end, its sign-in pages say it is deactivated, and its background work stops (scheduled
 * messages, emails, webhooks: each checks `deactivated` when it runs). Every event queue of its
 * users gets Zulip's `realm`/`deactivated` event; the queues are then left to expire, as Zulip's
 * are (a client's next GET /events is refused).
 */
export async function doDeactivateRealm(tx: Tx, realm: Realm, actor: User | null, reason?: string): Promise<boolean> {
  const current = await realmStore.getById(tx.q, realm.id);
  if (!current || current.deactivated) return false;
  // Noted as the realm's auth change: every cached credential of the realm is dropped, here and
  // in every other process, once this commits.
  await realmStore.update(tx.q, realm.id, { deactivated: 1 });
  await sessionStore.deleteForRealm(tx.q, realm.id);
  await auditLogStore.insert(tx.q, {
    realm_id: realm.id,
    event_type: "realm_deactivated",
    acting_user_id: actor?.id ?? null,
    extra_data: reason === undefined ? {} : { deactivation_reason: reason },
  });
  tx.sendEventOnCommit({ type: "realm", op: "deactivated", realm_id: realm.id }, await userStore.listActiveIds(tx.q, realm.id));
  return true;
}

/** Undoes doDeactivateRealm; the ended web sessions do not come back (users sign in again). */
export async function doReactivateRealm(tx: Tx, realm: Realm, actor: User | null): Promise<boolean> {
  const current = await realmStore.getById(tx.q, realm.id);
  if (!current || !current.deactivated) return false;
  await realmStore.update(tx.q, realm.id, { deactivated: 0 });
  await auditLogStore.insert(tx.q, { realm_id: realm.id, event_type: "realm_reactivated", acting_user_id: actor?.id ?? null });
  return true;
}
