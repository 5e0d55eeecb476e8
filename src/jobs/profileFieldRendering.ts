import { type AppContext, transaction } from "../appContext.js";
import { ProfileFieldType, renderProfileFieldValue } from "../lib/profileData.js";
import { customProfileFieldStore } from "../store/customProfileFields.js";

export const RENDER_PROFILE_FIELD_VALUES_JOB = "render_profile_field_values";

const BATCH = 200;

/**
 * Job (queued once by migration 2026-11-28T2200): renders again every stored short and long text
 * profile value, which were saved with their text escaped into one paragraph before values were
 * rendered as Markdown (issue 32). A batch per transaction, so a large organization never holds
 * the writer long; running it twice only renders the same HTML again.
 */
export async function renderStoredProfileFieldValues(ctx: AppContext): Promise<void> {
  const textTypes = [ProfileFieldType.SHORT_TEXT, ProfileFieldType.LONG_TEXT];
  let afterId = 0;
  for (;;) {
    const rows = await customProfileFieldStore.listTextValuesAfter(ctx.db.kysely, textTypes, afterId, BATCH);
    if (rows.length === 0) return;
    await transaction(ctx, async (tx) => {
      for (const row of rows) {
        await customProfileFieldStore.setRenderedValue(tx.q, row.id, await renderProfileFieldValue(tx.q, row.realm_id, row.value));
      }
    });
    afterId = rows[rows.length - 1]!.id;
  }
}
