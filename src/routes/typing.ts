import * as z from "zod";
import { transaction } from "../appContext.js";
import { sendChannelTyping, sendDirectTyping, sendMessageEditTyping } from "../actions/typing.js";
import { endpoint } from "../http/endpoint.js";
import { badRequest } from "../lib/errors.js";
import { p, pathParam } from "../http/params.js";

/** POST /typing (Zulip's send_notification_backend). */
export const sendTypingNotification = endpoint({
  auth: "user",
  params: {
    type: p.enum(["direct", "stream", "channel"]).default("direct"),
    op: p.enum(["start", "stop"]),
    to: p.json(z.array(z.int())).optional(),
    stream_id: p.int().optional(),
    topic: p.string({ trim: false }).optional(),
  },
  handler: async ({ ctx, user, realm, params }) => {
    if (params.type === "direct") {
      const to = params.to;
      if (to === undefined) throw badRequest("Missing 'to' argument");
      if (to.length === 0) throw badRequest("Empty 'to' list");
      await transaction(ctx, (tx) => sendDirectTyping(tx, user, to, params.op));
      return;
    }
    const { stream_id: streamId, topic } = params;
    if (streamId === undefined) throw badRequest("Missing stream_id");
    if (topic === undefined) throw badRequest("Missing topic");
    await transaction(ctx, (tx) => sendChannelTyping(tx, user, realm, streamId, topic, params.op));
  },
});

/** POST /messages/{message_id}/typing: typing while editing a message (Zulip 10.0, feature level 351). */
export const sendMessageEditTypingNotification = endpoint({
  auth: "user",
  params: { op: p.enum(["start", "stop"]) },
  handler: async ({ ctx, user, params, path }) => {
    const messageId = pathParam.int(path.message_id, "message_id");
    await transaction(ctx, (tx) => sendMessageEditTyping(tx, user, messageId, params.op));
  },
});
