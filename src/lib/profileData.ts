import type { Executor } from "../db/tx.js";
import { customProfileFieldStore } from "../store/customProfileFields.js";
import { camoUrl } from "./camo.js";
import { emptyReferences, renderMarkdown } from "./markdown/index.js";
import { renderChannelDescription } from "./messageRendering.js";
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

/** Types whose values are Markdown and carry `rendered_value` (Zulip's CustomProfileField.is_renderable). */
export function isRenderedFieldType(fieldType: number): boolean {
  return fieldType === ProfileFieldType.SHORT_TEXT || fieldType === ProfileFieldType.LONG_TEXT;
}

/**
 * The HTML of a short or long text value: Zulip renders it with render_stream_description (its
 * Markdown processor in the organization's context, without previews of linked pages) when the
 * value is written, and stores it beside the value, so reads never render. No author: a channel
 * link stays text (the value is shown to everyone, whatever channels its writer may see).
 */
export function renderProfileFieldValue(q: Executor, realmId: number, value: string): Promise<string> {
  return renderChannelDescription(q, { id: realmId }, null, value);
}

/** A value stored without its rendering (imported so): Markdown without look-ups (mentions stay text). */
function renderWithoutLookups(value: string): string {
  return renderMarkdown(value, emptyReferences(), { mediaProxy: camoUrl }).html;
}

/** `profile_data` of user payloads, keyed by user id (all users of the realm when `userIds` is null). */
export async function fetchProfileData(q: Executor, realmId: number, userIds: readonly number[] | null): Promise<Map<number, ProfileData>> {
  const byUser = new Map<number, ProfileData>();
  for (const row of await customProfileFieldStore.listValues(q, realmId, userIds)) {
    let data = byUser.get(row.user_id);
    if (!data) byUser.set(row.user_id, (data = {}));
    data[String(row.field_id)] = isRenderedFieldType(row.field_type)
      ? { value: row.value, rendered_value: row.rendered_value ?? renderWithoutLookups(row.value) }
      : { value: row.value };
  }
  return byUser;
}
