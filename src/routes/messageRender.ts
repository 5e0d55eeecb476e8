import { endpoint } from "../http/endpoint.js";
import { p } from "../http/params.js";
import { renderMessageContent } from "../lib/messageRendering.js";

/** POST /messages/render: the HTML the content would get if this user sent it now. */
export const renderMessage = endpoint({
  auth: "user",
  params: {
    content: p.string({ trim: false }),
  },
  handler: async ({ ctx, user, realm, params }) => {
    const rendered = await renderMessageContent(ctx.db.kysely, realm, user, params.content);
    return { rendered: rendered.html };
  },
});
