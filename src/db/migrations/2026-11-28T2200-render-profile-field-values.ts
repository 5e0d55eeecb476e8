import { type Kysely, sql } from "kysely";

/**
 * Short and long text profile values were stored with their text escaped into one paragraph; they
 * are now rendered as Markdown when written. The values already stored are rendered again by a
 * job (jobs/profileFieldRendering.ts), queued here when there are any: rendering needs the
 * organization's users, groups, emoji and linkifiers, which a migration should not depend on.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  await sql`
    insert into jobs (kind, payload, run_at, created_at)
    select 'render_profile_field_values', '{}', ${now}, ${now}
    where exists (
      select 1 from custom_profile_field_values v join custom_profile_fields f on f.id = v.field_id
      where f.field_type in (1, 2)
    )`.execute(db);
}
