import { createHash, randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { rm, stat } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { MAX_EXPORT_ATTEMPTS, notifyRealmExport } from "../actions/realmExport.js";
import { type AppContext, transaction } from "../appContext.js";
import type { Job } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { writeRealmExport } from "../lib/export/realmExport.js";
import type { JobPayload } from "../models/jobPayloads.js";
import { ExportStatus, type ExportTypeCode } from "../models/realmExport.js";
import { realmExportStore } from "../store/realmExports.js";
import { realmStore } from "../store/realms.js";
import { userStore } from "../store/users.js";
import { nowSeconds } from "../util/time.js";
import { sendNotificationBotDirectMessages } from "../actions/notificationBot.js";
import { realmUrl } from "../lib/realms.js";

// The data export job that actions/realmExport.ts queues.

/** How long a running export keeps its job claimed; renewed every quarter of it while it runs. */
const LEASE_SECONDS = 600;

async function sha256Of(file: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(file), hash);
  return hash.digest("hex");
}

/** Where temporary export files go: under the data directory's temporary uploads (not backed up). */
const exportWorkDir = (ctx: AppContext, exportId: number) => path.join(ctx.config.dataDir, "uploads", "tmp", `export-${exportId}`);

/**
 * The `realm_export` job (Zulip's export_realm_from_event). A run that a dead process left
 * started is done again from the start; after MAX_EXPORT_ATTEMPTS the export is failed.
 */
export async function runRealmExport(ctx: AppContext, payload: JobPayload<"realm_export">, job: Job): Promise<void> {
  const row = await realmExportStore.getById(ctx.db.kysely, payload.exportId);
  if (!row || (row.status !== ExportStatus.REQUESTED && row.status !== ExportStatus.STARTED)) return;
  const realm = await realmStore.getById(ctx.db.kysely, row.realm_id);
  if (!realm) return;
  const finish = (changes: Parameters<typeof realmExportStore.update>[2], after?: (tx: Tx) => Promise<void>) =>
    transaction(ctx, async (tx) => {
      await realmExportStore.update(tx.q, row.id, changes);
      await notifyRealmExport(tx, realm.id, realmUrl(ctx.config, realm));
      if (after) await after(tx);
    });
  if (job.attempts > MAX_EXPORT_ATTEMPTS) {
    ctx.log.error({ realm: realm.string_id, export: row.id }, "marking the data export failed after repeated interrupted runs");
    await finish({ status: ExportStatus.FAILED, date_failed: nowSeconds() });
    await rm(exportWorkDir(ctx, row.id), { recursive: true, force: true });
    return;
  }
  await realmExportStore.update(ctx.db.kysely, row.id, { status: ExportStatus.STARTED, date_started: nowSeconds() });

  const workDir = exportWorkDir(ctx, row.id);
  await rm(workDir, { recursive: true, force: true });
  const token = randomBytes(18).toString("base64url");
  const fileName = `zulip-export-${randomBytes(6).toString("hex")}.tar.gz`;
  const tarball = path.join(workDir, fileName);
  const started = Date.now();
  // The job stays claimed while this process works on it, however long a step takes.
  const renewLease = () => realmExportStore.extendJobLease(ctx.db.kysely, job.id, nowSeconds() + LEASE_SECONDS);
  const heartbeat = setInterval(
    () => void renewLease().catch((err) => ctx.log.warn({ err }, "could not renew the data export's lease")),
    (LEASE_SECONDS / 4) * 1000,
  );
  heartbeat.unref();
  let stored: string | undefined;
  try {
    await renewLease();
    const stats = await writeRealmExport(
      { q: ctx.db.kysely, blobs: ctx.blobs, dataDir: ctx.config.dataDir },
      realm.id,
      row.type as ExportTypeCode,
      tarball,
      workDir,
    );
    const sha256 = await sha256Of(tarball);
    const size = (await stat(tarball)).size;
    const key = `exports/${realm.id}/${token}/${fileName}`;
    await ctx.blobs.putFile(key, tarball);
    stored = key;
    await finish(
      {
        status: ExportStatus.SUCCEEDED,
        date_succeeded: nowSeconds(),
        export_path: key,
        sha256sum_hex: sha256,
        tarball_size_bytes: size,
        stats: JSON.stringify(stats),
      },
      async (tx) => {
        const requester = row.acting_user_id === null ? undefined : await userStore.getById(tx.q, row.acting_user_id);
        if (!requester?.is_active) return;
        const content = "Your data export is complete. [View and download exports](/#organization/data-exports-admin).";
        await sendNotificationBotDirectMessages(tx, realm, [{ user: requester, content }]);
      },
    );
    ctx.log.info({ realm: realm.string_id, export: row.id, seconds: (Date.now() - started) / 1000 }, "data export completed");
  } catch (error) {
    ctx.log.error({ err: error, realm: realm.string_id, export: row.id }, "data export failed");
    if (stored) await ctx.blobs.delete(stored).catch(() => {});
    await finish({ status: ExportStatus.FAILED, date_failed: nowSeconds() });
  } finally {
    clearInterval(heartbeat);
    await rm(workDir, { recursive: true, force: true });
  }
}
