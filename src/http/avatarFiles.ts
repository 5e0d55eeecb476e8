import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../appContext.js";
import type { StoredBlob } from "../blobs/storage.js";
import { accessUserById } from "../lib/access.js";
import { avatarBlobKey, avatarFileOf, realmIconBlobKey } from "../lib/avatarFiles.js";
import { authenticateApiKeyOrSession } from "./auth.js";
import { SESSION_COOKIE } from "./sessions.js";
import { realmOfRequest } from "../lib/realms.js";
import { checkVisitorsAllowed } from "../lib/streamAccess.js";
import { userStore } from "../store/users.js";

/**
 * Uploaded avatars at the URL user payloads give them: GET /user_avatars/{realm_id}/{user_id}.png
 * (and {user_id}-medium.png).
 * The names are user ids, so unlike Zulip's hashed names they could be enumerated: an avatar is
 * served only to someone signed in to that organization (API key, or the web app's session, which
 * an <img> sends; Zulip's apps send their credentials for the server's own images) who may access
 * that user — a restricted guest gets nothing for users he may not see. A visitor without
 * credentials (web-public channels) gets the avatars of the users of the organization the host
 * names when it lets visitors in, as Zulip serves avatars to anyone. Only PNGs stored under
 * lib/avatarFiles.ts's keys are served, with a CSP that allows nothing to run. The URLs carry
 * `?version=`, which changes with every new image, so a day of caching never shows an old one.
 *
 * The organization icon, /user_avatars/{realm_id}/realm/icon.png, is public as in Zulip (login
 * pages show it), on its organization's host only when the server has a root domain (as every
 * file of an organization: the viewer's credentials are bound to it, http/auth.ts).
 */
export async function avatarFiles(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  app.get<{ Params: { realm_id: string; file: string } }>("/user_avatars/:realm_id/:file", async (request, reply) => {
    const notFound = () => reply.status(404).send({ result: "error", msg: "Not Found", code: "NOT_FOUND" });
    const { realm_id: realmId, file } = request.params;
    const avatar = avatarFileOf(file);
    if (!/^\d{1,15}$/.test(realmId) || avatar === undefined) return notFound();
    const { userId } = avatar;
    const sessionKey = request.cookies[SESSION_COOKIE];
    let visible: boolean;
    if (!request.headers.authorization && !sessionKey) {
      // A visitor (Zulip serves avatars to anyone): a user of the host's organization, when it lets visitors in.
      visible = await visitorMaySee(ctx, request, Number(realmId), userId);
    } else {
      const { user: viewer } = await authenticateApiKeyOrSession(ctx, request.headers.authorization, sessionKey, request.host);
      if (viewer.realm_id !== Number(realmId)) return notFound();
      visible = await accessUserById(ctx.db.kysely, viewer, userId, { allowDeactivated: true, allowBots: true, forAdministration: false }).then(
        () => true,
        () => false,
      );
    }
    // An avatar from before medium sizes were stored (imported ones) has only the 100 px image.
    const blob = visible
      ? ((avatar.medium ? await ctx.blobs.get(avatarBlobKey(Number(realmId), userId, true)) : undefined) ??
        (await ctx.blobs.get(avatarBlobKey(Number(realmId), userId))))
      : undefined;
    if (!blob) return notFound();
    return sendPng(reply, blob, "private");
  });
  app.get<{ Params: { realm_id: string } }>("/user_avatars/:realm_id/realm/icon.png", async (request, reply) => {
    const { realm_id: realmId } = request.params;
    const onHost = ctx.config.rootDomain === undefined || (await realmOfRequest(ctx, request))?.id === Number(realmId);
    const blob = onHost && /^\d{1,15}$/.test(realmId) ? await ctx.blobs.get(realmIconBlobKey(Number(realmId))) : undefined;
    if (!blob) return reply.status(404).send({ result: "error", msg: "Not Found", code: "NOT_FOUND" });
    return sendPng(reply, blob, "public");
  });
}

/**
 * Whether a visitor (no credentials) may see this avatar: the user is of the organization the
 * request's host names (realmOfRequest), and that organization lets visitors in (checkVisitorsAllowed).
 */
async function visitorMaySee(ctx: AppContext, request: FastifyRequest, realmId: number, userId: number): Promise<boolean> {
  const realm = await realmOfRequest(ctx, request);
  if (!realm || realm.id !== realmId) return false;
  const allowed = await checkVisitorsAllowed(ctx.db.kysely, realm).then(
    () => true,
    () => false,
  );
  if (!allowed) return false;
  const user = await userStore.getById(ctx.db.kysely, userId);
  return user !== undefined && user.realm_id === realmId;
}

function sendPng(reply: FastifyReply, blob: StoredBlob, cache: "private" | "public"): FastifyReply {
  return reply
    .header("Content-Type", "image/png")
    .header("Content-Length", blob.size)
    .header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
    .header("Cache-Control", `${cache}, max-age=86400`)
    .send(blob.body);
}
