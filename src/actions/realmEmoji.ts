import { type AppContext, transaction } from "../appContext.js";
import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { ApiError, badRequest, InsufficientPermissionError } from "../lib/errors.js";
import type { UploadedFile } from "../http/mount.js";
import { emojiCodeForName } from "../lib/emoji.js";
import { removeEmojiFile, sniffEmojiImage, writeEmojiFile } from "../lib/emojiFiles.js";
import { AccessSubject, hasRealmPermission } from "../lib/streamAccess.js";
import { isAdmin } from "../models/roles.js";
import { auditLogStore } from "../store/auditLog.js";
import { type RealmEmoji, realmEmojiStore } from "../store/realmEmoji.js";
import { userStore } from "../store/users.js";
import { requireMemberOrAdmin } from "../lib/userGroupAccess.js";
import { MAX_EMOJI_FILE_SIZE_MIB } from "../models/limits.js";
import { type RealmEmojiPayload, getRealmEmojiDict } from "../lib/realmEmojiPayload.js";

/** Zulip's check_valid_emoji_name. */
function checkValidEmojiName(name: string): void {
  if (name === "") throw badRequest("Emoji name is missing");
  if (/^[0-9a-z_-]+$/.test(name)) {
    if (/[_-]$/.test(name)) throw badRequest("Emoji names must end with either a letter or digit.");
    return;
  }
  throw badRequest("Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.");
}

/**
 * POST /realm/emoji/{emoji_name} (Zulip's upload_emoji). The image is written first under a new
 * random name; if the database change then fails, the file is removed again.
 */
export async function checkAddRealmEmoji(ctx: AppContext, user: User, realm: Realm, rawName: string, files: readonly UploadedFile[]): Promise<void> {
  requireMemberOrAdmin(user);
  const name = rawName.trim().replaceAll(" ", "_");
  checkValidEmojiName(name);

  let written: string | undefined;
  try {
    await transaction(ctx, async (tx) => {
      if (!(await hasRealmPermission(tx.q, new AccessSubject(user), realm, "can_add_custom_emoji_group"))) throw new InsufficientPermissionError();
      if (await realmEmojiStore.getActiveByName(tx.q, realm.id, name)) throw nameTakenError();
      const [file] = files;
      if (files.length !== 1 || file === undefined) throw badRequest("You must upload exactly one file.");
      if (emojiCodeForName(name) !== undefined && !isAdmin(user)) throw badRequest("Only administrators can override default emoji.");
      if (file.data.length > MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024) {
        throw badRequest(`Uploaded file is larger than the allowed limit of ${MAX_EMOJI_FILE_SIZE_MIB} MiB`);
      }
      const ext = sniffEmojiImage(file.data);
      if (!ext) throw badRequest("Invalid image format");
      written = await writeEmojiFile(ctx.config.dataDir, realm.id, ext, file.data);
      await doAddRealmEmoji(tx, realm, user, name, written);
    });
  } catch (error) {
    if (written) await removeEmojiFile(ctx.config.dataDir, realm.id, written);
    throw error;
  }
}

const nameTakenError = () => badRequest("A custom emoji with this name already exists.");

export async function doAddRealmEmoji(tx: Tx, realm: Realm, author: User, name: string, fileName: string): Promise<RealmEmoji> {
  const row = await realmEmojiStore.insertIfNameFree(tx.q, { realm_id: realm.id, name, author_id: author.id, file_name: fileName });
  if (!row) throw nameTakenError();
  const dict = await getRealmEmojiDict(tx.q, realm.id);
  await auditLogStore.insert(tx.q, {
    realm_id: realm.id,
    event_type: "realm_emoji_added",
    acting_user_id: author.id,
    extra_data: { realm_emoji: dict, added_emoji: dict[String(row.id)] },
  });
  await notifyRealmEmoji(tx, realm.id, dict);
  return row;
}

/** DELETE /realm/emoji/{emoji_name}: administrators, or the emoji's author. */
export async function checkRemoveRealmEmoji(tx: Tx, user: User, realm: Realm, name: string): Promise<void> {
  const emoji = await realmEmojiStore.getActiveByName(tx.q, realm.id, name);
  if (!emoji) throw new ApiError(`Emoji '${name}' does not exist`, { status: 404 });
  if (!isAdmin(user) && emoji.author_id !== user.id) throw badRequest("Must be an organization administrator or emoji author");
  await doRemoveRealmEmoji(tx, realm, emoji, user);
}

/** Deactivates the emoji (messages and reactions keep showing it); the file stays. */
async function doRemoveRealmEmoji(tx: Tx, realm: Realm, emoji: RealmEmoji, actingUser: User | null): Promise<void> {
  await realmEmojiStore.deactivate(tx.q, emoji.id);
  const dict = await getRealmEmojiDict(tx.q, realm.id);
  await auditLogStore.insert(tx.q, {
    realm_id: realm.id,
    event_type: "realm_emoji_removed",
    acting_user_id: actingUser?.id ?? null,
    extra_data: { realm_emoji: dict, deactivated_emoji: dict[String(emoji.id)] },
  });
  await notifyRealmEmoji(tx, realm.id, dict);
}

async function notifyRealmEmoji(tx: Tx, realmId: number, dict: Record<string, RealmEmojiPayload>): Promise<void> {
  tx.sendEventOnCommit({ type: "realm_emoji", op: "update", realm_emoji: dict }, await userStore.listActiveIds(tx.q, realmId));
}
