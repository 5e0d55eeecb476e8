import { transaction } from "../appContext.js";
import { checkDeleteMessage } from "../actions/messageDelete.js";
import { checkUpdateMessage } from "../actions/messageEdit.js";
import { endpoint } from "../http/endpoint.js";
import { badRequest } from "../lib/errors.js";
import { p, pathParam } from "../http/params.js";
import { editHistorySnapshots } from "../lib/editHistory.js";
import { accessMessage } from "../lib/messageAccess.js";
import { realmSettings } from "../models/realmSettings.js";
import { AccessSubject } from "../lib/streamAccess.js";

/** PATCH /messages/{message_id} */
export const updateMessage = endpoint({
  auth: "user",
  params: {
    stream_id: p.int({ min: 0 }).optional(),
    topic: p.string({ trim: false }).optional().alias("subject"),
    propagate_mode: p.enum(["change_one", "change_later", "change_all"]).default("change_one"),
    send_notification_to_old_thread: p.bool().default(false),
    send_notification_to_new_thread: p.bool().default(true),
    content: p.string({ trim: false }).optional(),
  },
  handler: async ({ ctx, user, realm, params, path }) => {
    const messageId = pathParam.int(path.message_id, "message_id");
    return transaction(ctx, (tx) =>
      checkUpdateMessage(tx, user, realm, messageId, {
        streamId: params.stream_id,
        topic: params.topic,
        propagateMode: params.propagate_mode,
        sendNotificationToOldThread: params.send_notification_to_old_thread,
        sendNotificationToNewThread: params.send_notification_to_new_thread,
        content: params.content,
      }),
    );
  },
});

/** DELETE /messages/{message_id} */
export const deleteMessage = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, realm, path }) => {
    const messageId = pathParam.int(path.message_id, "message_id");
    await transaction(ctx, (tx) => checkDeleteMessage(tx, user, realm, messageId));
  },
});

/** GET /messages/{message_id}/history */
export const getMessageHistory = endpoint({
  auth: "user",
  params: {
    allow_empty_topic_name: p.bool().default(false),
  },
  handler: async ({ ctx, user, realm, params, path }) => {
    const messageId = pathParam.int(path.message_id, "message_id");
    if (realmSettings(realm).message_edit_history_visibility_policy === "none") {
      throw badRequest("Message edit history is disabled in this organization");
    }
    const { message } = await accessMessage(ctx.db.kysely, new AccessSubject(user), messageId);
    return { message_history: editHistorySnapshots(message, params.allow_empty_topic_name) };
  },
});
