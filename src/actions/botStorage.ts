import type { User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../lib/errors.js";
import { BOT_STORAGE_LIMIT } from "../models/limits.js";
import { botStorageStore } from "../store/botStorage.js";

/**
 * Bot storage (Zulip's zerver/lib/bot_storage.py): the key-value state Zulip's bots library keeps
 * through GET/PUT/DELETE /bot_storage. Every user's own; keys and values are strings.
 */
export async function getBotStorage(tx: Tx, user: User, keys: readonly string[] | null): Promise<Record<string, string>> {
  const rows = await botStorageStore.get(tx.q, user.id, keys);
  if (keys !== null) {
    const found = new Set(rows.map((r) => r.key));
    if (keys.some((key) => !found.has(key))) throw badRequest("Key does not exist.");
  }
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

export async function putBotStorage(tx: Tx, user: User, storage: Record<string, string>): Promise<void> {
  const entries = Object.entries(storage);
  const size = (await botStorageStore.sizeExcept(tx.q, user.id, Object.keys(storage))) + entries.reduce((sum, [k, v]) => sum + k.length + v.length, 0);
  if (size > BOT_STORAGE_LIMIT) {
    throw badRequest(`Request exceeds storage limit by ${size - BOT_STORAGE_LIMIT} characters. The limit is ${BOT_STORAGE_LIMIT} characters.`);
  }
  await botStorageStore.put(tx.q, user.id, entries);
}

export async function removeBotStorage(tx: Tx, user: User, keys: readonly string[] | null): Promise<void> {
  if (keys !== null) {
    const found = new Set((await botStorageStore.get(tx.q, user.id, keys)).map((r) => r.key));
    if (keys.some((key) => !found.has(key))) throw badRequest("Key does not exist.");
  }
  await botStorageStore.remove(tx.q, user.id, keys);
}
