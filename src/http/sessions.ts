import type { FastifyInstance } from "fastify";
import { createSession, endSession, passwordLogin } from "../actions/login.js";
import type { AppContext } from "../appContext.js";
import { errorEnvelope } from "./mount.js";

/**
 * Web sessions (Zulip's /accounts/login/ and /accounts/logout/): a password login sets the
 * `sessionid` cookie (HttpOnly, SameSite=Lax, Secure on https), which the endpoints a browser
 * reaches directly accept: file URLs under /user_uploads and the tus upload endpoint. Lax cookies
 * are not sent with cross-site POST/PATCH requests, so another site cannot upload as the user.
 */
export const SESSION_COOKIE = "sessionid";

export async function sessionPages(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  const secure = ctx.config.externalUrl.startsWith("https:");

  app.post<{ Body: { username?: string; password?: string } }>("/accounts/login/", async (request, reply) => {
    const { username, password } = (request.body ?? {}) as { username?: unknown; password?: unknown };
    if (typeof username !== "string" || typeof password !== "string") {
      return reply.status(400).send({ result: "error", msg: "Missing 'username' or 'password' argument", code: "BAD_REQUEST" });
    }
    try {
      const { user } = await passwordLogin(ctx, username.trim(), password);
      const session = await createSession(ctx, user);
      reply.setCookie(SESSION_COOKIE, session.key, { path: "/", httpOnly: true, sameSite: "lax", secure, maxAge: session.maxAge });
      return reply.redirect("/", 302);
    } catch (error) {
      const { status, body, headers } = errorEnvelope(error);
      return reply.status(status).headers(headers).send(body);
    }
  });

  app.post("/accounts/logout/", async (request, reply) => {
    const key = request.cookies[SESSION_COOKIE];
    if (key) await endSession(ctx, key);
    reply.clearCookie(SESSION_COOKIE, { path: "/" });
    return reply.redirect("/login/", 302);
  });
}
