import type { User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { generateApiKey } from "../lib/apiKeys.js";
import { auditLogStore } from "../store/auditLog.js";
import { userStore } from "../store/users.js";

/** Replaces `user`'s API key; the old key stops working at commit. Returns the new key. */
export async function doRegenerateApiKey(tx: Tx, user: User, actingUser: User): Promise<string> {
  const apiKey = generateApiKey();
  await userStore.update(tx.q, user.id, { api_key: apiKey });
  await auditLogStore.insert(tx.q, {
    realm_id: user.realm_id,
    acting_user_id: actingUser.id,
    modified_user_id: user.id,
    event_type: "user_api_key_changed",
  });
  return apiKey;
}
