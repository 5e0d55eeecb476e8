import type { Executor } from "../db/tx.js";
import { customProfileFieldStore } from "../store/customProfileFields.js";
import type { ProfileData } from "./userPayload.js";

/** Zulip's CustomProfileField types. */
export const ProfileFieldType = {
  SHORT_TEXT: 1,
  LONG_TEXT: 2,
  SELECT: 3,
  DATE: 4,
  URL: 5,
  USER: 6,
  EXTERNAL_ACCOUNT: 7,
  PRONOUNS: 8,
} as const;
export const PROFILE_FIELD_TYPES: readonly number[] = Object.values(ProfileFieldType);

/** Types whose values are Markdown and carry `rendered_value`. */
export function isRenderedFieldType(fieldType: number): boolean {
  return fieldType === ProfileFieldType.SHORT_TEXT || fieldType === ProfileFieldType.LONG_TEXT;
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * The HTML of a Markdown-capable value. For now the text is escaped and wrapped in one
 * paragraph; it moves to the Markdown renderer when that exists.
 */
export function renderProfileFieldValue(value: string): string {
  return `<p>${value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c])}</p>`;
}

/** `profile_data` of user payloads, keyed by user id (all users of the realm when `userIds` is null). */
export async function fetchProfileData(q: Executor, realmId: number, userIds: readonly number[] | null): Promise<Map<number, ProfileData>> {
  const byUser = new Map<number, ProfileData>();
  for (const row of await customProfileFieldStore.listValues(q, realmId, userIds)) {
    let data = byUser.get(row.user_id);
    if (!data) byUser.set(row.user_id, (data = {}));
    data[String(row.field_id)] = isRenderedFieldType(row.field_type)
      ? { value: row.value, rendered_value: row.rendered_value ?? renderProfileFieldValue(row.value) }
      : { value: row.value };
  }
  return byUser;
}
