/**
 * Uploaded avatars (avatar_source "U"): two square PNGs per user in the blob storage, Zulip's
 * default size (100 px) and its medium size (500 px), served at the URLs lib/userPayload.ts gives
 * them, /user_avatars/{realm_id}/{user_id}.png and {user_id}-medium.png (http/avatarFiles.ts).
 * An uploaded organization icon (icon_source "U") is /user_avatars/{realm_id}/realm/icon.png.
 */
export const avatarBlobKey = (realmId: number, userId: number, medium = false): string => `avatars/${realmId}/${userId}${medium ? "-medium" : ""}.png`;

export const realmIconBlobKey = (realmId: number): string => `avatars/${realmId}/realm/icon.png`;

/** Zulip's DEFAULT_AVATAR_SIZE and MEDIUM_AVATAR_SIZE (pixels on a side). */
export const AVATAR_SIZE = 100;
export const MEDIUM_AVATAR_SIZE = 500;

/** The user id and size of an avatar file name ("12.png", "12-medium.png"), or undefined for any other name. */
export function avatarFileOf(file: string): { userId: number; medium: boolean } | undefined {
  const match = /^(\d{1,15})(-medium)?\.png$/.exec(file);
  return match ? { userId: Number(match[1]), medium: match[2] !== undefined } : undefined;
}
