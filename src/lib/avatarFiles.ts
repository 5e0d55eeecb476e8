/**
 * Uploaded avatars (avatar_source "U"): one PNG per user in the blob storage, served at the URL
 * lib/userPayload.ts gives them, /user_avatars/{realm_id}/{user_id}.png (http/avatarFiles.ts).
 */
export const avatarBlobKey = (realmId: number, userId: number): string => `avatars/${realmId}/${userId}.png`;

/** The user id of an avatar file name ("12.png"), or undefined for any other name. */
export function avatarUserId(file: string): number | undefined {
  const match = /^(\d{1,15})\.png$/.exec(file);
  return match ? Number(match[1]) : undefined;
}
