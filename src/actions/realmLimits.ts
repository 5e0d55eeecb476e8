import type { Realm, User } from "../db/schema.js";
import type { Executor, Tx } from "../db/tx.js";
import { badRequest } from "../lib/errors.js";
import { attachmentStore } from "../store/attachments.js";
import { auditLogStore } from "../store/auditLog.js";
import { realmStore } from "../store/realms.js";
import { userStore } from "../store/users.js";

/**
 * Limits an operator puts on an organization (`parley set-organization-limits`), in the spirit of
 * Zulip Cloud's plan limits: at most `max_users` active human accounts, and at most
 * `upload_quota_mib` MiB of uploaded files (Zulip's upload_quota_bytes; like Zulip's
 * currently_used_upload_space_bytes, only message attachments count, not avatars or emoji).
 * Null is unlimited.
 */
export interface RealmLimits {
  max_users: number | null;
  upload_quota_mib: number | null;
}

const MIB = 1024 * 1024;

const users = (n: number) => `${n} ${n === 1 ? "user" : "users"}`;

/**
 * THE check of the user limit, for every path that makes an account active: accounts created
 * (doCreateUser: POST /users, sign-up by invitation or link, LDAP and external sign-up, the CLI),
 * users reactivated, and invitations when they are sent (`invitations`: how many). Bots do not
 * count, so callers skip it for them. The realm's row stays locked to the end of the transaction,
 * so two sign-ups at once cannot both take the last place.
 */
export async function checkUserLimit(tx: Tx, realmId: number, adding: { invitations: number } | null = null): Promise<void> {
  const limits = await realmStore.lockLimits(tx.q, tx.dialect, realmId);
  if (!limits || limits.max_users === null) return;
  const active = await userStore.countActiveHumansInRealm(tx.q, realmId);
  const wanted = adding?.invitations ?? 1;
  if (active + wanted <= limits.max_users) return;
  // Zulip Cloud's wording about a plan's licenses, adapted to an operator's limit.
  if (adding) throw badRequest(`Your organization does not have enough room under its limit of ${users(limits.max_users)} to invite ${users(wanted)}.`);
  throw badRequest(`New members cannot join this organization because it has reached its limit of ${users(limits.max_users)}.`);
}

/** Zulip's check_upload_within_quota: an upload of `bytes` more would exceed the realm's quota. */
export async function checkUploadQuota(q: Executor, realmId: number, bytes: number): Promise<void> {
  const realm = await realmStore.getById(q, realmId);
  if (!realm || realm.upload_quota_mib === null) return;
  const used = await attachmentStore.realmSpaceUsed(q, realmId);
  if (used + bytes > realm.upload_quota_mib * MIB) throw badRequest("Upload would exceed your organization's upload quota.");
}

/** The realm's use of its limits: active human users and MiB of uploaded files. */
export async function realmUsage(q: Executor, realmId: number): Promise<{ users: number; uploadBytes: number }> {
  return { users: await userStore.countActiveHumansInRealm(q, realmId), uploadBytes: await attachmentStore.realmSpaceUsed(q, realmId) };
}

/**
 * Sets the limits named in `changes` (null: unlimited). Clients learn the new upload quota as
 * Zulip tells them of a plan change (realm/update_dict with `upload_quota_mib`); the user limit
 * has no field in the API. Returns the limits now in force.
 */
export async function doSetRealmLimits(tx: Tx, realm: Realm, changes: Partial<RealmLimits>, actor: User | null): Promise<RealmLimits> {
  const current = await realmStore.lockLimits(tx.q, tx.dialect, realm.id);
  if (!current) throw new Error(`realm ${realm.id} vanished`);
  const next: RealmLimits = { ...current, ...changes };
  const changed = (Object.keys(changes) as Array<keyof RealmLimits>).filter((name) => current[name] !== next[name]);
  if (changed.length === 0) return next;
  await realmStore.update(tx.q, realm.id, Object.fromEntries(changed.map((name) => [name, next[name]])));
  await auditLogStore.insertMany(
    tx.q,
    changed.map((name) => ({
      realm_id: realm.id,
      event_type: "realm_property_changed",
      acting_user_id: actor?.id ?? null,
      extra_data: { property: name, old_value: current[name], new_value: next[name] },
    })),
  );
  if (changed.includes("upload_quota_mib")) {
    tx.sendEventOnCommit(
      { type: "realm", op: "update_dict", property: "default", data: { upload_quota_mib: next.upload_quota_mib } },
      await userStore.listActiveIds(tx.q, realm.id),
    );
  }
  return next;
}
