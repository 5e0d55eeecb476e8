import type { Executor } from "../db/tx.js";
import { nowSeconds } from "../util/time.js";
import { insertInBatches } from "./batches.js";

export interface AuditEntry {
  realm_id: number;
  event_type: string;
  acting_user_id?: number | null;
  modified_user_id?: number | null;
  modified_stream_id?: number | null;
  modified_group_id?: number | null;
  extra_data?: Record<string, unknown>;
}

function row(entry: AuditEntry, eventTime: number) {
  return {
    realm_id: entry.realm_id,
    event_type: entry.event_type,
    acting_user_id: entry.acting_user_id ?? null,
    modified_user_id: entry.modified_user_id ?? null,
    modified_stream_id: entry.modified_stream_id ?? null,
    modified_group_id: entry.modified_group_id ?? null,
    extra_data: JSON.stringify(entry.extra_data ?? {}),
    event_time: eventTime,
  };
}

export const auditLogStore = {
  async insert(q: Executor, entry: AuditEntry): Promise<void> {
    await q.insertInto("audit_log").values(row(entry, nowSeconds())).execute();
  },

  /** Several entries in one statement, in this order. */
  async insertMany(q: Executor, entries: readonly AuditEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const now = nowSeconds();
    await insertInBatches(
      entries.map((entry) => row(entry, now)),
      (batch) => q.insertInto("audit_log").values(batch).execute(),
    );
  },
};
