import { describe, expect, it } from "vitest";
import { type HeartbeatEntry, ParkedPolls } from "../../src/events/parkedPolls.js";

/**
 * The one heartbeat timer of all parked polls (src/events/parkedPolls.ts): each poll gets its
 * heartbeat after the interval from its own start, in order, and a stopped one never does. (Over
 * HTTP: test/events/queues.test.ts "answers an idle long-poll with a heartbeat".)
 */
function entry(name: string, fired: Array<[string, number]>, startedAt: () => number): HeartbeatEntry {
  return {
    heartbeatAt: 0,
    prevHeartbeat: null,
    nextHeartbeat: null,
    inHeartbeats: false,
    heartbeat: () => fired.push([name, performance.now() - startedAt()]),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("parked polls' heartbeats", () => {
  it("fires each poll's heartbeat an interval after it was parked, skipping stopped ones, with one timer", async () => {
    const parked = new ParkedPolls(120);
    const fired: Array<[string, number]> = [];
    const starts = new Map<string, number>();
    const make = (name: string) => {
      const e = entry(name, fired, () => starts.get(name)!);
      starts.set(name, performance.now());
      parked.startHeartbeat(e);
      return e;
    };
    const a = make("a");
    await sleep(40);
    const b = make("b");
    const c = make("c");
    await sleep(20);
    const d = make("d");
    parked.stopHeartbeat(c); // answered before its heartbeat
    parked.stopHeartbeat(c); // twice: no effect
    expect(parked.counting).toBe(3);
    await sleep(700);
    expect(fired.map(([name]) => name)).toEqual(["a", "b", "d"]);
    for (const [, after] of fired) expect(after).toBeGreaterThanOrEqual(119);
    expect(parked.counting).toBe(0);
    // Parked again after it fired: counts again from then.
    parked.startHeartbeat(a);
    parked.stopHeartbeat(b);
    expect(parked.counting).toBe(1);
    parked.stopHeartbeat(a);
    expect(parked.counting).toBe(0);
    await sleep(200);
    expect(fired).toHaveLength(3);
    expect(d.inHeartbeats).toBe(false);
  });

  it("flushes every queue that asked in one tick, once", async () => {
    const parked = new ParkedPolls(1000);
    const flushed: string[] = [];
    parked.flushSoon({ flush: () => flushed.push("x") });
    parked.flushSoon({ flush: () => flushed.push("y") });
    expect(flushed).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(flushed).toEqual(["x", "y"]);
  });
});
