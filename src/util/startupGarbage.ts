import v8 from "node:v8";
import vm from "node:vm";

/** How long after start the server is left to settle before its start-up garbage is collected. */
const SETTLE_MS = 1_000;

/**
 * Collects start-up's garbage once, right after the server started listening. Start-up fills V8's
 * young generation with objects that die at once; V8 gives those pages back when its memory
 * reducer, which a full collection arms, finds the process idle. Without a full collection after
 * start, an idle server on a busy machine kept them for long after start; with this one it gives
 * them back soon after (the benchmark notes have the measurements). Node
 * exposes `gc` only under `--expose-gc`: the flag is set just long enough to take the function from
 * a new context (v8.setFlagsFromString), so no global `gc` is left behind.
 */
export function collectStartupGarbage(): void {
  const timer = setTimeout(() => {
    try {
      v8.setFlagsFromString("--expose-gc");
      const gc = vm.runInNewContext("gc") as (options?: { type: "major"; execution: "sync" }) => void;
      v8.setFlagsFromString("--no-expose-gc");
      gc({ type: "major", execution: "sync" });
    } catch {
      // Not available in this runtime: V8's own memory reducer will do it later.
    }
  }, SETTLE_MS);
  timer.unref();
}
