import type { Realm } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { SYSTEM_GROUPS } from "../models/systemGroups.js";
import { auditLogStore } from "../store/auditLog.js";
import { realmStore } from "../store/realms.js";
import { userGroupStore } from "../store/userGroups.js";
import { nowSeconds } from "../util/time.js";

export interface NewRealm {
  string_id: string;
  name: string;
  description?: string;
}

/** Creates an organization with its system groups (no users yet). */
export async function doCreateRealm(tx: Tx, input: NewRealm): Promise<Realm> {
  const now = nowSeconds();
  const realm = await realmStore.insert(tx.q, {
    string_id: input.string_id,
    name: input.name,
    description: input.description ?? "",
    date_created: now,
    message_retention_days: null,
  });
  // Widest first; each system group contains the next one (see models/systemGroups.ts).
  let previous: number | null = null;
  const created: number[] = [];
  for (const group of SYSTEM_GROUPS) {
    const row = await userGroupStore.insert(tx.q, {
      realm_id: realm.id,
      name: group.name,
      description: group.description,
      is_system_group: 1,
      date_created: now,
    });
    created.push(row.id);
    if (previous !== null && group.name !== "role:nobody") await userGroupStore.addSubgroups(tx.q, previous, [row.id]);
    previous = row.id;
  }
  await auditLogStore.insert(tx.q, { realm_id: realm.id, event_type: "realm_created" });
  return realm;
}
