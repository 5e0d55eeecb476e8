import { type AppContext, transaction } from "../../appContext.js";
import type { Tx } from "../../db/tx.js";
import { importStore } from "../../store/imports.js";
import { realmStore } from "../../store/realms.js";
import type { ImportProgress } from "./progress.js";

/**
 * An import of one organization: resumed from the state its last batch saved when the organization
 * exists and is being imported from the same export (`source`), else started by `start`, which
 * creates the organization and its state row in one transaction. `fail` makes the importer's own
 * error from a message.
 */
export async function resumeOrStart<State>(
  ctx: AppContext,
  options: {
    stringId: string;
    source: string;
    fail: (message: string) => Error;
    start: (tx: Tx) => Promise<{ state: State; realmId: number }>;
    progress: ImportProgress;
    startedNote: (state: State) => string;
  },
): Promise<{ state: State; realmId: number; resumed: boolean }> {
  const { stringId, fail } = options;
  const existing = await realmStore.getByStringId(ctx.db.kysely, stringId);
  if (!existing) {
    const started = await transaction(ctx, options.start);
    options.progress.note(options.startedNote(started.state));
    return { ...started, resumed: false };
  }
  const run = await importStore.runByRealm(ctx.db.kysely, existing.id);
  if (!run) throw fail(`an organization with string id "${stringId}" exists already: choose another with --string-id`);
  if (run.status === "done") throw fail(`organization "${stringId}" has been imported already`);
  if (run.source !== options.source)
    throw fail(`organization "${stringId}" is being imported from another export (${run.source}): finish that import or choose another --string-id`);
  options.progress.note(`Continuing the interrupted import of "${stringId}"`);
  return { state: JSON.parse(run.state) as State, realmId: existing.id, resumed: true };
}

/** Counts committed batches; the test hook `failAfterBatches` stops the import after that many. */
export function batchCounter(failAfterBatches: number | undefined): () => void {
  let batches = 0;
  return () => {
    batches += 1;
    if (failAfterBatches !== undefined && batches >= failAfterBatches) throw new Error(`import interrupted after ${batches} batches (test hook)`);
  };
}
