import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { transaction } from "../../src/appContext.js";
import { openDb } from "../../src/db/connect.js";
import { GroupCommitLanes } from "../../src/db/groupCommit.js";
import { inCheckThenWrite } from "../../src/db/tx.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";
import { TEST_ENGINE } from "../support/testDb.js";
import { at } from "../support/at.js";

const t = useTestServer();

/** The transactions whose marker job (a blob clean-up of a key naming it) was committed. */
async function committedMarkers(): Promise<string[]> {
  const rows = await t.ctx.db.kysely.selectFrom("jobs").select("payload").where("payload", "like", "%group-commit-%").execute();
  return rows.map((r) => JSON.parse(r.payload).keys[0]).sort();
}

// Transactions waiting at the same moment share one COMMIT (src/db/groupCommit.ts); each is still
// all-or-nothing on its own, also when one fails in the database (PostgreSQL then refuses every
// statement of the transaction until it is rolled back to the unit's savepoint).
describe("transactions started together", () => {
  it("commit each one's writes and hooks, and roll back only the one that failed", async () => {
    await t.ctx.jobs.stop();
    try {
      const hooks: string[] = [];
      const unit = (name: string, fail: boolean) =>
        transaction(t.ctx, async (tx) => {
          await tx.enqueueJob("delete_upload_blobs", { keys: [`group-commit-${name}`] });
          tx.afterCommit(() => hooks.push(name));
          if (fail && name === "d") await sql`select * from no_such_table`.execute(tx.q);
          if (fail) throw new Error(`${name} failed`);
          return name;
        });
      const results = await Promise.allSettled([unit("a", false), unit("b", true), unit("c", false), unit("d", true), unit("e", false)]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "rejected", "fulfilled"]);
      expect((results[1] as PromiseRejectedResult).reason.message).toBe("b failed");
      expect((results[3] as PromiseRejectedResult).reason.message).toMatch(/no_such_table/);
      expect(results.filter((r) => r.status === "fulfilled").map((r) => (r as PromiseFulfilledResult<string>).value)).toEqual(["a", "c", "e"]);
      expect(await committedMarkers()).toEqual(["group-commit-a", "group-commit-c", "group-commit-e"]);
      expect(hooks.sort()).toEqual(["a", "c", "e"]);
    } finally {
      await t.ctx.db.kysely.deleteFrom("jobs").where("payload", "like", "%group-commit-%").execute();
      t.ctx.jobs.start();
    }
  });

  it("roll back a unit that fails alone, after its writes, and commit the next", async () => {
    await t.ctx.jobs.stop();
    try {
      const lone = transaction(t.ctx, async (tx) => {
        await tx.enqueueJob("delete_upload_blobs", { keys: ["group-commit-lone"] });
        throw new Error("lone failed");
      });
      await expect(lone).rejects.toThrow("lone failed");
      await transaction(t.ctx, (tx) => tx.enqueueJob("delete_upload_blobs", { keys: ["group-commit-next"] }));
      expect(await committedMarkers()).toEqual(["group-commit-next"]);
    } finally {
      await t.ctx.db.kysely.deleteFrom("jobs").where("payload", "like", "%group-commit-%").execute();
      t.ctx.jobs.start();
    }
  });

  it("deliver every concurrent send once to every queue", async () => {
    const queue = expectSuccess(await t.post("othello", "/api/v1/register", { event_types: ["message"] }));
    const sends = Array.from({ length: 30 }, (_, i) =>
      t.post(i % 2 ? "hamlet" : "iago", "/api/v1/messages", { type: "stream", to: "Verona", topic: "burst", content: `burst ${i}` }),
    );
    const ids = (await Promise.all(sends)).map((res) => expectSuccess(res).id as number);
    expect(new Set(ids).size).toBe(30);
    const { events } = expectSuccess(await t.get("othello", "/api/v1/events", { queue_id: queue.queue_id, last_event_id: -1, dont_block: true }));
    const received = events.filter((e: any) => e.type === "message").map((e: any) => e.message.id);
    expect(received.sort((a: number, b: number) => a - b)).toEqual([...ids].sort((a, b) => a - b));
  });
});

// A send's checks, then its writes (src/db/tx.ts inCheckThenWrite): with several lanes the checks
// do not wait for the conversation's lane, which another unit holds; with one lane (SQLite) the two
// are one unit of that lane.
describe("checks, then writes, for a conversation whose lane is busy", () => {
  it(TEST_ENGINE === "sqlite" ? "run together once the lane is free" : "check at once and write once the lane is free", async () => {
    const steps: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const holds = new Promise<void>((resolve) => (holding = resolve));
    const holder = transaction(
      t.ctx,
      async () => {
        holding();
        await held;
        steps.push("holder done");
      },
      { batchKey: "busy conversation" },
    );
    await holds;
    const send = inCheckThenWrite(
      t.ctx,
      async () => {
        steps.push("checked");
        return 42;
      },
      async (_tx, checked) => {
        steps.push(`wrote ${checked}`);
        return checked;
      },
      { batchKey: "busy conversation" },
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const severalLanes = t.ctx.db.dialect.writeLanes > 1;
    expect(steps).toEqual(severalLanes ? ["checked"] : []);
    release();
    expect(await send).toBe(42);
    await holder;
    expect(steps).toEqual(severalLanes ? ["checked", "holder done", "wrote 42"] : ["holder done", "checked", "wrote 42"]);
  });
});

// SQLite: a group commit keeps its savepoint journals in memory (Dialect.journalsInMemory); other
// statements keep spilling big sorts to temporary files, so a CREATE INDEX over millions of rows does
// not hold them all in memory.
describe.runIf(TEST_ENGINE === "sqlite")("a group commit on SQLite", () => {
  const tempStore = async (q: typeof t.ctx.db.kysely) => at((await sql<{ temp_store: number }>`pragma temp_store`.execute(q)).rows, 0).temp_store;

  it("keeps its journals in memory while it runs, and only then", async () => {
    expect(await tempStore(t.ctx.db.kysely)).toBe(0);
    const inside = await Promise.all([1, 2, 3].map(() => transaction(t.ctx, async (tx) => tempStore(tx.q))));
    expect(inside).toEqual([2, 2, 2]);
    const failing = transaction(t.ctx, async () => {
      throw new Error("unit failed");
    });
    await expect(failing).rejects.toThrow("unit failed");
    expect(await tempStore(t.ctx.db.kysely)).toBe(0);
  });
});

describe("a group commit whose transaction cannot begin", () => {
  it("fails the units waiting for it instead of waiting again", async () => {
    // Nothing listens on port 1: every connection is refused at once.
    const db = openDb({ kind: "postgres", url: "postgres://parley@127.0.0.1:1/parley" }, { connectTimeoutSeconds: 2 });
    try {
      const lanes = new GroupCommitLanes({ db, events: t.ctx.events, wakeJobs: () => {} }, 1);
      const units = [1, 2, 3].map(() => lanes.run(async () => "written"));
      for (const unit of units) await expect(unit).rejects.toThrow(/ECONNREFUSED|connect/);
    } finally {
      await db.close();
    }
  });
});
