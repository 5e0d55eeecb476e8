import { type Executor } from "../db/tx.js";
import { type RealmPlayground, realmPlaygroundStore } from "../store/realmPlaygrounds.js";

/** A code playground as clients see it (the OpenAPI RealmPlayground). */
export interface RealmPlaygroundPayload {
  id: number;
  name: string;
  pygments_language: string;
  url_template: string;
}

export async function realmPlaygrounds(q: Executor, realmId: number): Promise<RealmPlaygroundPayload[]> {
  return (await realmPlaygroundStore.listForRealm(q, realmId)).map(playgroundPayload);
}

const playgroundPayload = (row: RealmPlayground): RealmPlaygroundPayload => ({
  id: row.id,
  name: row.name,
  pygments_language: row.pygments_language,
  url_template: row.url_template,
});
