import { type Executor } from "../db/tx.js";
import { type RealmEmoji, realmEmojiStore } from "../store/realmEmoji.js";

/** A custom emoji as clients see it (Zulip's EmojiInfo, as in the OpenAPI RealmEmoji). */
export interface RealmEmojiPayload {
  id: string;
  name: string;
  source_url: string;
  still_url: string | null;
  deactivated: boolean;
  author_id: number | null;
}

/** Every custom emoji of the realm, deactivated ones included, keyed by id (GET /realm/emoji, realm_emoji events). */
export async function getRealmEmojiDict(q: Executor, realmId: number): Promise<Record<string, RealmEmojiPayload>> {
  const rows = await realmEmojiStore.listInRealm(q, realmId);
  return Object.fromEntries(rows.map((row) => [String(row.id), buildRealmEmojiPayload(row)]));
}

export function buildRealmEmojiPayload(row: RealmEmoji): RealmEmojiPayload {
  return {
    id: String(row.id),
    name: row.name,
    source_url: `/user_avatars/${row.realm_id}/emoji/images/${row.file_name}`,
    // Uploads are stored as sent; no still frame is made for animated images.
    still_url: null,
    deactivated: row.deactivated === 1,
    author_id: row.author_id,
  };
}
