import type { FastifyInstance } from "fastify";
import type { AppContext } from "../appContext.js";
import { accessUserById } from "../lib/access.js";
import { avatarBlobKey, avatarUserId } from "../lib/avatarFiles.js";
import { authenticateApiKeyOrSession } from "./auth.js";
import { SESSION_COOKIE } from "./sessions.js";

/**
 * Uploaded avatars at the URL user payloads give them: GET /user_avatars/{realm_id}/{user_id}.png.
 * The names are user ids, so unlike Zulip's hashed names they could be enumerated: an avatar is
 * served only to someone signed in to that organization (API key, or the web app's session, which
 * an <img> sends; Zulip's apps send their credentials for the server's own images) who may access
 * that user — a restricted guest gets nothing for users he may not see. Only PNGs stored under
 * lib/avatarFiles.ts's keys are served, with a CSP that allows nothing to run.
 */
export async function avatarFiles(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  app.get<{ Params: { realm_id: string; file: string } }>("/user_avatars/:realm_id/:file", async (request, reply) => {
    const notFound = () => reply.status(404).send({ result: "error", msg: "Not Found", code: "NOT_FOUND" });
    const { realm_id: realmId, file } = request.params;
    const userId = avatarUserId(file);
    if (!/^\d{1,15}$/.test(realmId) || userId === undefined) return notFound();
    const { user: viewer } = await authenticateApiKeyOrSession(ctx, request.headers.authorization, request.cookies[SESSION_COOKIE]);
    if (viewer.realm_id !== Number(realmId)) return notFound();
    const visible = await accessUserById(ctx.db.kysely, viewer, userId, { allowDeactivated: true, allowBots: true, forAdministration: false }).then(
      () => true,
      () => false,
    );
    const blob = visible ? await ctx.blobs.get(avatarBlobKey(Number(realmId), userId)) : undefined;
    if (!blob) return notFound();
    return reply
      .header("Content-Type", "image/png")
      .header("Content-Length", blob.size)
      .header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
      .header("Cache-Control", "private, max-age=86400")
      .send(blob.body);
  });
}
