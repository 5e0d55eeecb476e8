import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../appContext.js";
import { escapeHtml } from "../util/html.js";
import { checkFormToken, type FormCsrf } from "./formCsrf.js";
import { sendHtml, simplePage } from "./webApp.js";
import { checkSameOriginForm, CsrfError } from "./webSession.js";

/** What the server-rendered pages' forms share: reading a posted field, and their CSRF check and page. */

/** A field of the posted form: "" when it is absent or not text. */
export function formField(request: FastifyRequest, name: string): string {
  const value = ((request.body ?? {}) as Record<string, unknown>)[name];
  return typeof value === "string" ? value : "";
}

/** The form came from our own page: same origin, and its double-submit token matches its cookie. */
export function formAccepted(ctx: AppContext, request: FastifyRequest, form: FormCsrf): boolean {
  try {
    checkSameOriginForm(ctx, request);
    checkFormToken(request, form);
    return true;
  } catch (error) {
    if (error instanceof CsrfError) return false;
    throw error;
  }
}

/** Django's 403 page for a refused form, with a link back to the form (`back`: its path and text). */
export function csrfFailedPage(reply: FastifyReply, back: { path: string; text: string }): FastifyReply {
  return sendHtml(
    reply,
    403,
    simplePage(
      "Forbidden",
      `<h1>Forbidden</h1><p class="error" role="alert">CSRF verification failed. Open the page again and resubmit the form.</p>` +
        `<p class="hint"><a href="${escapeHtml(back.path)}">${escapeHtml(back.text)}</a></p>`,
    ),
  );
}
