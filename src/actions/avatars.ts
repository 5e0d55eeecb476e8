import { type AppContext, transaction } from "../appContext.js";
import type { BlobStorage } from "../blobs/storage.js";
import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import type { UploadedFile } from "../http/mount.js";
import { requireAdministrator, userIdsWhoCanAccessUser } from "../lib/access.js";
import { AVATAR_SIZE, avatarBlobKey, MEDIUM_AVATAR_SIZE, realmIconBlobKey } from "../lib/avatarFiles.js";
import { squarePng } from "../lib/avatarImages.js";
import { badRequest } from "../lib/errors.js";
import { realmIconUrl } from "../lib/realms.js";
import { avatarUrlFor, mediumAvatarUrlFor } from "../lib/userPayload.js";
import { MAX_AVATAR_FILE_SIZE_MIB, MAX_ICON_FILE_SIZE_MIB } from "../models/limits.js";
import { realmSettings } from "../models/realmSettings.js";
import { isAdmin } from "../models/roles.js";
import { auditLogStore } from "../store/auditLog.js";
import { realmStore } from "../store/realms.js";
import { userStore } from "../store/users.js";

/** Zulip's AVATAR_CHANGES_DISABLED_ERROR. */
const AVATAR_CHANGES_DISABLED = "Avatar changes are disabled in this organization.";

function checkAvatarChangesAllowed(user: User, realm: Realm): void {
  if (realmSettings(realm).avatar_changes_disabled && !isAdmin(user)) throw badRequest(AVATAR_CHANGES_DISABLED);
}

/** The one image of a multipart body, within `maxMib`; `count` names what Zulip asks for. */
function singleImage(files: readonly UploadedFile[], count: string, maxMib: number): Buffer {
  const [file] = files;
  if (files.length !== 1 || file === undefined) throw badRequest(`You must upload exactly one ${count}.`);
  return withinLimit(file.data, maxMib);
}

function withinLimit(data: Buffer, maxMib: number): Buffer {
  if (data.length > maxMib * 1024 * 1024) throw badRequest(`Uploaded file is larger than the allowed limit of ${maxMib} MiB`);
  return data;
}

/** An uploaded avatar made ready to store: Zulip's default and medium sizes, square PNGs. */
export interface AvatarImages {
  small: Buffer;
  medium: Buffer;
}

/** Zulip's resize_avatar at both sizes; "Could not decode image; …" for anything but a raster image. */
async function avatarImages(data: Buffer): Promise<AvatarImages> {
  const [small, medium] = await Promise.all([squarePng(data, AVATAR_SIZE), squarePng(data, MEDIUM_AVATAR_SIZE)]);
  return { small, medium };
}

/**
 * A bot's avatar in the body of POST /bots or PATCH /bots/{id} (Zulip's add_bot_backend and
 * patch_bot_backend): none (undefined), or the one file made ready to store. Call it before the
 * transaction opens: resizing takes tens of milliseconds.
 */
export async function botAvatarImages(files: readonly UploadedFile[]): Promise<AvatarImages | undefined> {
  checkBotAvatarFileCount(files.length);
  const [file] = files;
  return file === undefined ? undefined : avatarImages(withinLimit(file.data, MAX_AVATAR_FILE_SIZE_MIB));
}

/** Zulip's check, at its place among the bot endpoints' other checks. */
export function checkBotAvatarFileCount(count: number): void {
  if (count > 1) throw badRequest("You may only upload one file at a time");
}

/** Stores both sizes under the user's avatar keys (http/avatarFiles.ts serves them once avatar_source is "U"). */
export async function storeAvatarImages(blobs: BlobStorage, user: Pick<User, "realm_id" | "id">, images: AvatarImages): Promise<void> {
  await blobs.putBytes(avatarBlobKey(user.realm_id, user.id), images.small);
  await blobs.putBytes(avatarBlobKey(user.realm_id, user.id, true), images.medium);
}

/**
 * POST /users/me/avatar (Zulip's set_avatar_backend): the image cropped to a square at 100 and
 * 500 px, stored, and avatar_source "U" with a new avatar_version, so every avatar URL changes
 * and browsers fetch the new image. Answers the new avatar_url.
 */
export async function checkSetAvatar(ctx: AppContext, user: User, realm: Realm, files: readonly UploadedFile[]): Promise<string> {
  if (files.length !== 1) throw badRequest("You must upload exactly one avatar.");
  checkAvatarChangesAllowed(user, realm);
  const images = await avatarImages(singleImage(files, "avatar", MAX_AVATAR_FILE_SIZE_MIB));
  await storeAvatarImages(ctx.blobs, user, images);
  const updated = await transaction(ctx, (tx) => doChangeAvatarSource(tx, user, "U", user));
  return avatarUrlFor(user, updated, false)!;
}

/** DELETE /users/me/avatar (Zulip's delete_avatar_backend): back to the gravatar; the files are removed. */
export async function checkDeleteAvatar(ctx: AppContext, user: User, realm: Realm): Promise<string> {
  checkAvatarChangesAllowed(user, realm);
  const updated = await transaction(ctx, (tx) => doChangeAvatarSource(tx, user, "G", user));
  await ctx.blobs.delete(avatarBlobKey(realm.id, user.id));
  await ctx.blobs.delete(avatarBlobKey(realm.id, user.id, true));
  return avatarUrlFor(user, updated, false)!;
}

/**
 * Zulip's do_change_avatar_fields: the source and a new version (the version is in every avatar
 * URL), an audit entry, and a realm_user update (realm_bot too for a bot) with the new URLs.
 */
export async function doChangeAvatarSource(tx: Tx, user: User, source: "G" | "U", actor: User | null): Promise<User> {
  const current = (await userStore.getById(tx.q, user.id)) ?? user;
  const updated: User = { ...current, avatar_source: source, avatar_version: current.avatar_version + 1 };
  await userStore.update(tx.q, user.id, { avatar_source: source, avatar_version: updated.avatar_version });
  await auditLogStore.insert(tx.q, {
    realm_id: user.realm_id,
    event_type: "user_avatar_source_changed",
    acting_user_id: actor?.id ?? null,
    modified_user_id: user.id,
    extra_data: { avatar_source: source },
  });
  const person = {
    user_id: user.id,
    avatar_source: source,
    avatar_url: avatarUrlFor(null, updated, false),
    avatar_url_medium: mediumAvatarUrlFor(null, updated, false),
    avatar_version: updated.avatar_version,
  };
  tx.sendEventOnCommit({ type: "realm_user", op: "update", person }, await userIdsWhoCanAccessUser(tx.q, updated));
  if (updated.is_bot) {
    const audience = await userStore.listActiveAdminIds(tx.q, updated.realm_id);
    if (updated.bot_owner_id !== null) audience.push(updated.bot_owner_id);
    tx.sendEventOnCommit({ type: "realm_bot", op: "update", bot: { user_id: user.id, avatar_url: person.avatar_url } }, [...new Set(audience)]);
  }
  return updated;
}

/** POST /realm/icon (Zulip's upload_icon): administrators; a 100 px square PNG. Answers icon_url. */
export async function checkSetRealmIcon(ctx: AppContext, user: User, realm: Realm, files: readonly UploadedFile[]): Promise<string> {
  requireAdministrator(user);
  const data = singleImage(files, "icon", MAX_ICON_FILE_SIZE_MIB);
  await ctx.blobs.putBytes(realmIconBlobKey(realm.id), await squarePng(data, AVATAR_SIZE));
  return realmIconUrl(await transaction(ctx, (tx) => doChangeIconSource(tx, realm, "U", user)));
}

/** DELETE /realm/icon (Zulip's delete_icon_backend): back to the generated icon; the file stays, as in Zulip. */
export async function checkDeleteRealmIcon(ctx: AppContext, user: User, realm: Realm): Promise<string> {
  requireAdministrator(user);
  return realmIconUrl(await transaction(ctx, (tx) => doChangeIconSource(tx, realm, "G", user)));
}

/** Zulip's do_change_icon_source: a new icon_version, an audit entry, a realm update_dict event "icon". */
async function doChangeIconSource(tx: Tx, realm: Realm, source: "G" | "U", actor: User | null): Promise<Realm> {
  const current = (await realmStore.getById(tx.q, realm.id)) ?? realm;
  const updated: Realm = { ...current, icon_source: source, icon_version: current.icon_version + 1 };
  await realmStore.update(tx.q, realm.id, { icon_source: source, icon_version: updated.icon_version });
  await auditLogStore.insert(tx.q, {
    realm_id: realm.id,
    event_type: "realm_icon_source_changed",
    acting_user_id: actor?.id ?? null,
    extra_data: { icon_source: source, icon_version: updated.icon_version },
  });
  const data = { icon_source: source, icon_url: realmIconUrl(updated) };
  tx.sendEventOnCommit({ type: "realm", op: "update_dict", property: "icon", data }, await userStore.listActiveIds(tx.q, realm.id));
  return updated;
}
