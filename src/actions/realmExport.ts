import type { Realm, RealmExport, User } from "../db/schema.js";
import type { Executor, Tx } from "../db/tx.js";
import { badRequest } from "../lib/errors.js";
import { EXPORT_LIMIT, EXPORT_LIMIT_WINDOW_SECONDS, ExportStatus, type ExportTypeCode, MAX_MESSAGE_HISTORY, MAX_UPLOAD_BYTES } from "../models/realmExport.js";
import { userSettings } from "../models/userSettings.js";
import { exportReadStore } from "../store/exportReads.js";
import { realmExportStore } from "../store/realmExports.js";
import { userStore } from "../store/users.js";
import { nowSeconds } from "../util/time.js";
import { DELETE_BLOBS_JOB } from "./attachments.js";

/**
 * Data exports through the API (Zulip's views/realm_export.py and actions/realm_export.py):
 * POST /export/realm records a requested export and queues a durable `realm_export` job, which
 * writes the tarball (lib/export/), stores it as a blob under `exports/<realm>/<random>/` and
 * tells the requester. Administrators get a `realm_export` event with the whole list at each
 * change. The tarball is served to the organization's administrators only (http/exportFiles.ts).
 */
export const REALM_EXPORT_JOB = "realm_export" as const;
/** Attempts of an export whose process died meanwhile (restart, out of memory) before it is failed. */
export const MAX_EXPORT_ATTEMPTS = 3;

/** Zulip's RealmExport object as GET /export/realm and the realm_export event list it. */
export interface RealmExportPayload {
  id: number;
  acting_user_id: number;
  export_time: number;
  deleted_timestamp: number | null;
  failed_timestamp: number | null;
  export_url: string | null;
  pending: boolean;
  export_type: number;
}

/** The download URL of a stored export (Zulip's local-storage form: /user_avatars/exports/…). */
export function exportUrl(realmUrl: string, exportPath: string): string {
  return `${realmUrl}/user_avatars/${exportPath.split("/").map(encodeURIComponent).join("/")}`;
}

function exportPayload(row: RealmExport, realmUrl: string): RealmExportPayload {
  return {
    id: row.id,
    acting_user_id: row.acting_user_id!,
    export_time: row.date_requested,
    deleted_timestamp: row.date_deleted,
    failed_timestamp: row.date_failed,
    export_url: row.status === ExportStatus.SUCCEEDED && row.export_path !== null ? exportUrl(realmUrl, row.export_path) : null,
    pending: row.status === ExportStatus.REQUESTED || row.status === ExportStatus.STARTED,
    export_type: row.type,
  };
}

/** Zulip's get_realm_exports_serialized. */
export async function realmExports(q: Executor, realmId: number, realmUrl: string): Promise<RealmExportPayload[]> {
  return (await realmExportStore.listRequested(q, realmId)).map((row) => exportPayload(row, realmUrl));
}

/** Zulip's notify_realm_export: the whole list, to the organization's human administrators. */
export async function notifyRealmExport(tx: Tx, realmId: number, realmUrl: string): Promise<void> {
  const event = { type: "realm_export" as const, exports: await realmExports(tx.q, realmId, realmUrl) };
  tx.sendEventOnCommit(event, await userStore.listActiveAdminIds(tx.q, realmId));
}

/** Zulip's export_realm view: the weekly limit and the size limit, then the request and its job. */
export async function doRequestRealmExport(tx: Tx, realm: Realm, user: User, type: ExportTypeCode, realmUrl: string, supportEmail: string): Promise<number> {
  const now = nowSeconds();
  if ((await realmExportStore.countRequestedSince(tx.q, realm.id, now - EXPORT_LIMIT_WINDOW_SECONDS)) >= EXPORT_LIMIT) throw badRequest("Exceeded rate limit.");
  const size = await exportReadStore.size(tx.q, realm.id);
  if (size.messages > MAX_MESSAGE_HISTORY || size.uploadBytes > MAX_UPLOAD_BYTES) throw badRequest(`Please request a manual export from ${supportEmail}.`);
  const id = await realmExportStore.insert(tx.q, { realm_id: realm.id, acting_user_id: user.id, type, date_requested: now });
  await notifyRealmExport(tx, realm.id, realmUrl);
  await tx.enqueueJob(REALM_EXPORT_JOB, { exportId: id }, { maxAttempts: MAX_EXPORT_ATTEMPTS + 1 });
  return id;
}

/** Zulip's delete_realm_export: only a finished export; its tarball is deleted by a durable job. */
export async function doDeleteRealmExport(tx: Tx, realm: Realm, id: number, realmUrl: string): Promise<void> {
  const row = await realmExportStore.get(tx.q, realm.id, id);
  if (!row) throw badRequest("Invalid data export ID");
  if (row.status === ExportStatus.DELETED) throw badRequest("Export already deleted");
  if (row.status === ExportStatus.FAILED) throw badRequest("Export failed, nothing to delete");
  if (row.status === ExportStatus.REQUESTED || row.status === ExportStatus.STARTED) throw badRequest("Export still in progress");
  await realmExportStore.update(tx.q, id, { status: ExportStatus.DELETED, date_deleted: nowSeconds() });
  if (row.export_path !== null) await tx.enqueueJob(DELETE_BLOBS_JOB, { keys: [row.export_path] });
  await notifyRealmExport(tx, realm.id, realmUrl);
}

/** Zulip's get_users_export_consents: the active humans of the organization. */
export async function exportConsents(q: Executor, realmId: number): Promise<Array<{ user_id: number; consented: boolean }>> {
  const users = await exportReadStore.users(q, realmId);
  return users.filter((u) => u.is_active === 1 && u.is_bot === 0).map((u) => ({ user_id: u.id, consented: userSettings(u).allow_private_data_export }));
}
