import { constants, PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { fullCollection } from "./startupGarbage.js";

/**
 * The kinds of the collections that ran during `run` (synchronous), as Node's performance timeline
 * reports them; collections the test runner's own allocation causes afterwards are left out.
 */
async function collectionKinds(run: () => void): Promise<number[]> {
  const entries: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => entries.push(...list.getEntries()));
  observer.observe({ entryTypes: ["gc"] });
  const started = performance.now();
  run();
  const ended = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  return entries
    .filter((entry) => entry.startTime >= started && entry.startTime <= ended)
    .map((entry) => (entry as unknown as { detail: { kind: number } }).detail.kind);
}

describe("the start-up collection", () => {
  it("is available without --expose-gc and leaves no global gc behind", () => {
    expect(fullCollection()).toBeTypeOf("function");
    expect("gc" in globalThis).toBe(false);
  });

  it("runs a full (mark-compact) collection, not a scavenge", async () => {
    const collect = fullCollection();
    if (!collect) throw new Error("no gc");
    expect(await collectionKinds(collect)).toContain(constants.NODE_PERFORMANCE_GC_MAJOR);
  });
});
