import type { Executor } from "../db/tx.js";

/**
 * Recipient ids of the active channels a new user joins: `streamIds` of the realm, and the
 * realm's default channels when `includeDefaults`.
 */
export async function newUserChannelRecipientIds(q: Executor, realmId: number, streamIds: readonly number[], includeDefaults: boolean): Promise<number[]> {
  if (streamIds.length === 0 && !includeDefaults) return [];
  const rows = await q
    .selectFrom("streams")
    .select("recipient_id")
    .where("realm_id", "=", realmId)
    .where("is_archived", "=", 0)
    .where((eb) => {
      const chosen = [];
      if (streamIds.length > 0) chosen.push(eb("id", "in", [...streamIds]));
      if (includeDefaults) chosen.push(eb("id", "in", eb.selectFrom("default_streams").select("stream_id").where("realm_id", "=", realmId)));
      return eb.or(chosen);
    })
    .orderBy("id")
    .execute();
  return rows.map((r) => r.recipient_id).filter((id): id is number => id !== null);
}
