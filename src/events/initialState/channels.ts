import type { Executor } from "../../db/tx.js";
import type { StateRequest } from "./index.js";

/** Initial-state sections of this area (stub; see the module list in index.ts). */
export async function fetchChannelState(_q: Executor, _req: StateRequest): Promise<Record<string, unknown>> {
  return {};
}
