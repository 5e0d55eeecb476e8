import type { FastifyInstance, FastifyRequest } from "fastify";
import { REGISTER_PARAMS, VISITOR_REGISTER_PARAMS } from "../contract/register.js";
import { CSRF_COOKIE, SESSION_COOKIE } from "./webSession.js";

/**
 * The parameters of the web app's POST /json/register: the app's own (src/contract/register.ts,
 * plain data), so the answer embedded in the page is the one the app would ask for.
 */
export const WEB_APP_REGISTER_PARAMS: Record<string, unknown> = REGISTER_PARAMS;

/** The id of the element of `/` that holds the state (web/src/events.ts reads it). */
export const STATE_ELEMENT_ID = "parley-state";

/**
 * The web app's /register answer, for `/` to embed: POST /json/register run inside the server
 * with the page's session and CSRF token, so it is the very answer the app would get from its
 * own request (same checks, event queue, rate limit and JSON), without the round trip after the
 * script has loaded. null when it fails: the app then registers itself.
 */
export async function registerForPage(app: FastifyInstance, request: FastifyRequest, csrfToken: string): Promise<string | null> {
  const session = request.cookies[SESSION_COOKIE];
  if (!session) return null;
  return injectRegister(app, request, WEB_APP_REGISTER_PARAMS, {
    cookie: `${SESSION_COOKIE}=${session}; ${CSRF_COOKIE}=${csrfToken}`,
    "x-csrftoken": csrfToken,
  });
}

/** The web app's /register answer for a visitor (no credentials, in the language of Zulip's cookie), for `/` to embed. */
export async function registerForVisitorPage(app: FastifyInstance, request: FastifyRequest): Promise<string | null> {
  const language = request.cookies[LANGUAGE_COOKIE];
  return injectRegister(app, request, VISITOR_REGISTER_PARAMS, language ? { cookie: `${LANGUAGE_COOKIE}=${encodeURIComponent(language)}` } : {});
}

/** Django's LANGUAGE_COOKIE_NAME (routes/register.ts reads a visitor's language from it). */
const LANGUAGE_COOKIE = "django_language";

async function injectRegister(
  app: FastifyInstance,
  request: FastifyRequest,
  params: Record<string, unknown>,
  credentials: Record<string, string>,
): Promise<string | null> {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) form.set(key, typeof value === "string" ? value : JSON.stringify(value));
  try {
    const res = await app.inject({
      // The visitor's own address: its queues and requests count against it (events/visitorQueues.ts).
      remoteAddress: request.ip,
      method: "POST",
      url: "/json/register",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        ...credentials,
        "user-agent": request.headers["user-agent"] ?? "",
      },
      payload: form.toString(),
    });
    return res.statusCode === 200 ? res.body : null;
  } catch {
    return null;
  }
}

/**
 * JSON as the text of a `<script type="application/json">` element: no `<` (so no `</script>`
 * or `<!--` can end or change the element), each written as the same JSON escape.
 */
export function jsonForScriptElement(json: string): string {
  return json.replace(/</g, "\\u003c");
}
