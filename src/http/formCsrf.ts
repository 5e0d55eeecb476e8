import { randomBytes } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../appContext.js";
import { apiKeysEqual } from "../lib/apiKeys.js";
import { escapeHtml } from "../util/html.js";
import { CsrfError } from "./webSession.js";

/**
 * Double-submit tokens for the forms posted before there is a session to carry a CSRF token
 * (sign-in, development sign-in, sign-up), as Django's CSRF middleware protects them in Zulip:
 * the page showing the form sets a random token in an HttpOnly, SameSite=Strict cookie for the
 * path the form posts to, and writes the same token in a hidden field; the POST must bring both,
 * equal. Another site can make a browser post the form, but it can neither read nor set the
 * token, so it cannot sign a visitor in to an account of its choosing (login CSRF).
 */
export interface FormCsrf {
  /** The cookie's name. */
  cookie: string;
  /** The path the form posts to: the cookie goes with that request only. */
  path: string;
}

/** Django's (and so Zulip's) name for the hidden field. */
const FORM_CSRF_FIELD = "csrfmiddlewaretoken";

export const LOGIN_FORM: FormCsrf = { cookie: "login_csrftoken", path: "/accounts/login/" };
export const DEV_LOGIN_FORM: FormCsrf = { cookie: "devlogin_csrftoken", path: "/devlogin/" };
export const JOIN_FORM: FormCsrf = { cookie: "join_csrftoken", path: "/join/" };

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{32}$/;

/** The form's token: the one this browser already holds (several open forms keep working), else a new one, set in its cookie. */
export function formToken(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, form: FormCsrf): string {
  const held = request.cookies[form.cookie];
  if (held && TOKEN_PATTERN.test(held)) return held;
  const token = randomBytes(24).toString("base64url");
  reply.setCookie(form.cookie, token, cookieOptions(ctx, form));
  return token;
}

function cookieOptions(ctx: AppContext, form: FormCsrf) {
  return { path: form.path, httpOnly: true, sameSite: "strict" as const, secure: ctx.config.externalUrl.startsWith("https:") };
}

/** Refuses (CsrfError) a POST of the form whose hidden field does not equal its cookie; Django's reasons. */
export function checkFormToken(request: FastifyRequest, form: FormCsrf): void {
  const cookieToken = request.cookies[form.cookie];
  const body = (request.body ?? {}) as Record<string, unknown>;
  const sent = body[FORM_CSRF_FIELD];
  if (!cookieToken) throw new CsrfError("CSRF cookie not set.");
  if (typeof sent !== "string" || sent === "") throw new CsrfError("CSRF token missing.");
  if (!apiKeysEqual(cookieToken, sent)) throw new CsrfError("CSRF token incorrect.");
}

/** Forgets the form's token once the form has done its work. */
export function clearFormToken(ctx: AppContext, reply: FastifyReply, form: FormCsrf): void {
  reply.clearCookie(form.cookie, cookieOptions(ctx, form));
}

/** The hidden field carrying the token. */
export function formTokenField(token: string): string {
  return `<input type="hidden" name="${FORM_CSRF_FIELD}" value="${escapeHtml(token)}">`;
}
