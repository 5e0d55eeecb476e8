import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { openDb } from "../src/db/connect.js";
import { runParley, useServerProcesses } from "./support/process.js";

/**
 * Background jobs as an operator handles them: `parley jobs` lists what is not done and retries
 * or drops it; finished jobs are deleted after PARLEY_JOB_RETENTION_DAYS by the running server.
 */
const servers = useServerProcesses();

describe("background jobs for operators", () => {
  it("lists, retries and drops jobs, and the server prunes finished ones past their retention", async () => {
    const env = { ...(await servers.freshEnv()), PARLEY_JOB_RETENTION_DAYS: "1" };
    expect((await runParley(["migrate"], env)).code).toBe(0);
    const db = openDb(loadConfig(env).database);
    servers.onCleanup(() => db.close());
    const now = Math.floor(Date.now() / 1000);
    const insert = async (row: { kind: string; status: "pending" | "done" | "failed"; finished_at: number | null; last_error?: string; run_at?: number }) =>
      Number(
        (
          await db.kysely
            .insertInto("jobs")
            .values({ payload: "{}", run_at: now, created_at: now - 3 * 86400, attempts: row.status === "pending" ? 0 : 5, last_error: null, ...row })
            .returning("id")
            .executeTakeFirstOrThrow()
        ).id,
      );
    const oldDone = await insert({ kind: "parley-test-old", status: "done", finished_at: now - 2 * 86400 });
    const recentDone = await insert({ kind: "parley-test-recent", status: "done", finished_at: now - 3600 });
    const failed = await insert({ kind: "parley-test-failing", status: "failed", finished_at: now - 60, last_error: "SMTP said\n550 no" });
    const oldFailed = await insert({ kind: "parley-test-old-failure", status: "failed", finished_at: now - 2 * 86400, last_error: "gone" });
    const pending = await insert({ kind: "parley-test-later", status: "pending", finished_at: null, run_at: now + 86400 });

    const list = await runParley(["jobs"], env);
    expect(list.code, list.stderr).toBe(0);
    const lines = list.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^ID\s+KIND\s+STATUS\s+ATTEMPTS\s+RUN AT\s+LAST ERROR$/);
    expect(lines.find((l) => l.startsWith(`${failed} `))).toMatch(/parley-test-failing\s+failed\s+5\/5\s+\S+Z\s+SMTP said 550 no$/);
    expect(lines.find((l) => l.startsWith(`${pending} `))).toMatch(/parley-test-later\s+pending\s+0\/5/);
    expect(list.stdout).not.toContain("parley-test-recent");

    expect((await runParley(["jobs", "--retry", "nope"], env)).code).toBe(2);
    expect((await runParley(["jobs", "--retry", String(failed)], env)).stdout).toContain("Retrying 1 failed job(s)");
    expect((await runParley(["jobs", "--drop", String(pending)], env)).stdout).toContain("Dropped 1 job(s)");
    const after = (await runParley(["jobs"], env)).stdout;
    expect(after.split("\n").find((l) => l.startsWith(`${failed} `))).toMatch(/parley-test-failing\s+pending\s+0\/5/);
    expect(after).not.toContain("parley-test-later");

    // The server prunes at start (then hourly): finished over a day ago goes, the rest stays.
    const server = await servers.start(env);
    const remaining = async () =>
      (await db.kysely.selectFrom("jobs").select("id").where("id", "in", [oldDone, recentDone, failed, oldFailed]).orderBy("id").execute()).map((r) =>
        Number(r.id),
      );
    const deadline = Date.now() + 10_000;
    while ((await remaining()).includes(oldDone)) {
      if (Date.now() > deadline) throw new Error(`finished jobs were not pruned:\n${server.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await remaining()).toEqual([recentDone, failed]);
  }, 180_000);
});
