import type { FastifyInstance, FastifyReply } from "fastify";
import { checkConfirmEmailChange, ConfirmationLinkError } from "../actions/settings.js";
import { transaction, type AppContext } from "../appContext.js";
import { realmServesHost } from "../lib/realms.js";
import { escapeHtml } from "../util/html.js";

/**
 * Account pages opened from links in emails (outside /api/v1): short HTML pages, never the JSON
 * envelope. GET /accounts/confirm_new_email/:key applies an email change.
 */
export async function accountPages(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  app.get<{ Params: { key: string } }>("/accounts/confirm_new_email/:key", async (request, reply) => {
    try {
      const { oldEmail, newEmail } = await transaction(ctx, (tx) =>
        checkConfirmEmailChange(tx, request.params.key, (realm) => realmServesHost(ctx.config, realm, request.host)),
      );
      return page(reply, 200, "Email address changed", `The email address for your account was changed from ${oldEmail} to ${newEmail}.`);
    } catch (error) {
      if (!(error instanceof ConfirmationLinkError)) throw error;
      const status = error.reason === "unavailable" ? 400 : 404;
      return page(reply, status, "Could not change your email address", error.message);
    }
  });
}

function page(reply: FastifyReply, status: number, title: string, text: string): FastifyReply {
  const html =
    `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
    `<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>\n`;
  return reply.status(status).type("text/html; charset=utf-8").send(html);
}
