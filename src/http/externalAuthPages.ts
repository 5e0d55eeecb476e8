import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { realmServesHost } from "../lib/realms.js";
import type { AppContext } from "../appContext.js";
import { EXTERNAL_BACKENDS } from "../auth/backends.js";
import { refusal } from "../auth/external.js";
import { intentFromRequest, isDesktopLoginToken, takeDesktopLogin } from "../auth/flows.js";
import { createSession } from "../actions/login.js";
import { realmStore } from "../store/realms.js";
import { userStore } from "../store/users.js";
import { sessionUse, setSessionCookies } from "./webSession.js";

/**
 * Zulip's URLs for signing in through an identity provider: `/accounts/login/social/<key>[/<idp>]`
 * and `/accounts/register/social/<key>[/<idp>]` (the login_url and signup_url of
 * server_settings' external_authentication_methods) send the browser to the provider; each
 * provider mounts the routes it comes back to. `/accounts/login/subdomain/<token>` ends the
 * desktop app's flow (auth/appFlows.ts).
 */
export async function externalAuthPages(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  const start = (signup: boolean) => async (request: FastifyRequest<{ Params: { key: string; idp?: string } }>, reply: FastifyReply) => {
    const { key, idp } = request.params;
    const backend = EXTERNAL_BACKENDS.find((b) => b.key === key);
    const entry = backend?.entries(ctx.config.auth).find((e) => e.path === (idp === undefined ? key : `${key}/${idp}`));
    if (!backend || !entry) return refusal(reply, 404, "Not available", "This server does not offer that way of signing in.");
    return backend.begin(ctx, request, reply, intentFromRequest(request, signup), idp);
  };
  for (const [prefix, signup] of [
    ["/accounts/login/social", false],
    ["/accounts/register/social", true],
  ] as const) {
    app.get(`${prefix}/:key`, start(signup));
    app.get(`${prefix}/:key/:idp`, start(signup));
  }
  // Zulip's log_into_subdomain: the desktop app turns the token of finish_desktop_flow into a web session.
  app.get<{ Params: { token: string } }>("/accounts/login/subdomain/:token", async (request, reply) => {
    const { token } = request.params;
    if (!isDesktopLoginToken(token)) return reply.code(400).send();
    const userId = await takeDesktopLogin(ctx, token);
    const user = userId === null ? undefined : await userStore.getById(ctx.db.kysely, userId);
    const realm = user && (await realmStore.getById(ctx.db.kysely, user.realm_id));
    // The app opens the token on its organization's host; elsewhere it signs nobody in.
    if (!user || !user.is_active || !realm || realm.deactivated || !realmServesHost(ctx.config, realm, request.host))
      return refusal(reply, 400, "Invalid login token", "This login token is invalid or has expired. Log in again from the app.");
    setSessionCookies(ctx, reply, await createSession(ctx, user, sessionUse(request)));
    return reply.redirect("/", 302);
  });
  for (const backend of EXTERNAL_BACKENDS) backend.mount(app, ctx);
}
