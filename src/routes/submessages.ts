import { checkAddSubmessage } from "../actions/submessages.js";
import { transaction } from "../appContext.js";
import { endpoint } from "../http/endpoint.js";
import { p } from "../http/params.js";

/** POST /submessage: a change to a message's widget (a poll vote, a to-do task, ...). */
export const addSubmessage = endpoint({
  auth: "user",
  params: {
    message_id: p.int(),
    msg_type: p.string({ trim: false }),
    content: p.string({ trim: false }),
  },
  handler: async ({ ctx, user, params }) => {
    await transaction(ctx, (tx) => checkAddSubmessage(tx, user, { messageId: params.message_id, msgType: params.msg_type, content: params.content }));
  },
});
