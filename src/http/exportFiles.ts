import type { FastifyInstance } from "fastify";
import type { AppContext } from "../appContext.js";
import { isAdmin } from "../models/roles.js";
import { ExportStatus } from "../models/realmExport.js";
import { realmExportStore } from "../store/realmExports.js";
import { authenticateApiKeyOrSession } from "./auth.js";
import { ApiError } from "../lib/errors.js";
import { SESSION_COOKIE } from "./sessions.js";

/**
 * A data export's tarball at Zulip's URL, GET /user_avatars/exports/{realm_id}/{token}/{file}
 * (the export_url of GET /export/realm). Zulip serves it to anyone with the URL; Parley asks
 * for credentials (API key or web session) of an administrator of that organization. Only the
 * key of a succeeded export is ever read from blob storage.
 */
const notFound = () => new ApiError("File not found.", { code: "NOT_FOUND", status: 404 });

export async function exportFiles(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  app.get<{ Params: { realm_id: string; token: string; file: string } }>("/user_avatars/exports/:realm_id/:token/:file", async (request, reply) => {
    const { user } = await authenticateApiKeyOrSession(ctx, request.headers.authorization, request.cookies[SESSION_COOKIE], request.host);
    const { realm_id: realmId, token, file } = request.params;
    if (String(user.realm_id) !== realmId) throw notFound();
    if (!isAdmin(user)) throw new ApiError("You are not authorized to view this file.", { code: "UNAUTHORIZED", status: 403 });
    const row = await realmExportStore.getByPath(ctx.db.kysely, `exports/${realmId}/${token}/${file}`);
    if (!row || row.realm_id !== user.realm_id || row.status !== ExportStatus.SUCCEEDED || row.export_path === null) throw notFound();
    const blob = await ctx.blobs.get(row.export_path);
    if (!blob) throw notFound();
    return reply
      .header("Content-Type", "application/gzip")
      .header("Content-Disposition", `attachment; filename="${file.replace(/[^A-Za-z0-9._-]/g, "_")}"`)
      .header("Content-Length", String(blob.size))
      .header("Cache-Control", "private, no-store")
      .header("X-Content-Type-Options", "nosniff")
      .send(blob.body);
  });
}
