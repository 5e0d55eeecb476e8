import { badRequest } from "../lib/errors.js";
import { endpoint } from "../http/endpoint.js";
import { pathParam } from "../http/params.js";
import { accessMessage } from "../lib/messageAccess.js";
import { AccessSubject } from "../lib/streamAccess.js";
import { realmSettings } from "../models/realmSettings.js";
import { userSettings } from "../models/userSettings.js";
import { readReceiptStore } from "../store/readReceipts.js";

/**
 * GET /messages/{message_id}/read_receipts (Zulip's read_receipts): who read a message the
 * caller may read, among those who share read receipts; never its sender, nor users muted by
 * or muting the caller, nor deactivated users.
 */
export const getReadReceipts = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, realm, path }) => {
    const messageId = pathParam.int(path.message_id, "message_id");
    const q = ctx.db.kysely;
    const { message } = await accessMessage(q, new AccessSubject(user), messageId);
    if (!realmSettings(realm).enable_read_receipts) throw badRequest("Read receipts are disabled in this organization.");
    const readers = await readReceiptStore.readers(q, message.id, message.sender_id, user.id);
    return { user_ids: readers.filter((r) => userSettings(r).send_read_receipts).map((r) => r.id) };
  },
});
