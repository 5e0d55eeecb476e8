import type { FastifyInstance } from "fastify";
import type { AppContext } from "../appContext.js";
import { avatarBlobKey, avatarUserId } from "../lib/avatarFiles.js";

/**
 * Uploaded avatars at the URL user payloads give them: GET /user_avatars/{realm_id}/{user_id}.png.
 * Like Zulip's local storage (served by nginx), no login is needed; only PNGs stored under
 * lib/avatarFiles.ts's keys are served, with a CSP that allows nothing to run.
 */
export async function avatarFiles(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  app.get<{ Params: { realm_id: string; file: string } }>("/user_avatars/:realm_id/:file", async (request, reply) => {
    const { realm_id: realmId, file } = request.params;
    const userId = avatarUserId(file);
    const blob = /^\d{1,15}$/.test(realmId) && userId !== undefined ? await opts.ctx.blobs.get(avatarBlobKey(Number(realmId), userId)) : undefined;
    if (!blob) return reply.status(404).send({ result: "error", msg: "Not Found", code: "NOT_FOUND" });
    return reply
      .header("Content-Type", "image/png")
      .header("Content-Length", blob.size)
      .header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
      .header("Cache-Control", "public, max-age=86400")
      .send(blob.body);
  });
}
