import v8 from "node:v8";
import vm from "node:vm";

/**
 * When start-up's garbage is collected: first once the server has listened for a while (longer than
 * V8's 5 s window for the allocation rate), then again a few times while the young generation has
 * not yet shrunk.
 */
const SETTLE_MS = 12_000;
const RETRY_MS = 6_000;
const ATTEMPTS = 3;
/** A young generation larger than this has not been given back yet (shrunk, it is 1-2 MiB). */
const SHRUNK_BYTES = 4 * 1024 * 1024;

/**
 * Collects start-up's garbage once the server is idle, so that V8 gives back its young generation.
 * Start-up fills the young generation's two semi-spaces (up to 8 MiB as npm start runs node, with
 * --max-semi-space-size=4; 32 MiB by V8's default) with objects that die at once. V8 shrinks them
 * after a collection only when the allocation rate it measured since the collection before was
 * low (under 1 KB/ms), or in its memory reducer, which runs only when it finds the process idle,
 * and on a busy machine late or not at all. A collection 1 s after start came too soon (the rate
 * still counted start-up's allocation): with V8's default an idle server was at 74 MiB 30 s after
 * start in some starts and 94-98 MiB in others. One 12 s after start may still count what start-up
 * allocated since its last scavenge; one 6 s later sees only the idle server's allocation (the
 * benchmark notes have the measurements). A server busy by then keeps its young generation, as it
 * should: the attempts stop after three. The collection is a full, compacting one: start-up also
 * leaves ~6 MiB of garbage in the old generation, which only a full collection frees, and
 * compacting gives the emptied pages back at once (fullCollection).
 */
export function collectStartupGarbage(): void {
  const collect = fullCollection();
  if (!collect) return;
  const attempt = (left: number) => {
    collect();
    if (left > 1 && youngGenerationBytes() > SHRUNK_BYTES) setTimeout(attempt, RETRY_MS, left - 1).unref();
  };
  setTimeout(attempt, SETTLE_MS, ATTEMPTS).unref();
}

/**
 * A full (mark-compact) collection by V8's `gc` that also compacts the old generation, or undefined
 * where the runtime does not offer it. Node exposes `gc` only under `--expose-gc`: the flag is set
 * just long enough to take the function from a new context, so no global `gc` is left behind. It
 * is called without options: Node 20's V8 reads `gc({ type: "major" })` as a scavenge of the young
 * generation only. A full collection frees dead objects but keeps the pages they leave part-empty;
 * compacting moves the survivors together and gives the emptied pages back at once, instead of when
 * V8's memory reducer next finds the process idle (later, or on a busy machine never). The flag is
 * V8's own, read during the collection, and set only for this one.
 */
export function fullCollection(): (() => void) | undefined {
  try {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as () => void;
    v8.setFlagsFromString("--no-expose-gc");
    return () => {
      v8.setFlagsFromString("--compact-on-every-full-gc");
      try {
        gc();
      } finally {
        v8.setFlagsFromString("--no-compact-on-every-full-gc");
      }
    };
  } catch {
    // V8's own memory reducer will do it later.
    return undefined;
  }
}

function youngGenerationBytes(): number {
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0;
}
