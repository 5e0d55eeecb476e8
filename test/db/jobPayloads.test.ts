import { describe, expect, it } from "vitest";
import { at } from "../support/at.js";
import { transaction } from "../../src/appContext.js";
import { useTestServer } from "../support/testApp.js";

const t = useTestServer();

const jobsOfUser = (userId: number) =>
  t.ctx.db.kysely.selectFrom("jobs").selectAll().where("kind", "=", "missed_message_email").where("payload", "like", `%"userId":${userId}%`).execute();

describe("job payloads (one schema per kind: src/models/jobPayloads.ts)", () => {
  it("an invalid payload is refused when enqueued, and the transaction writes nothing", async () => {
    await expect(
      transaction(t.ctx, async (tx) => {
        await tx.enqueueJob("missed_message_email", { userId: 999_001 });
        // (The types refuse it too; a payload built from untyped data could still be wrong.)
        await tx.enqueueJob("missed_message_email", { userId: "hamlet" } as never);
      }),
    ).rejects.toThrow(/invalid missed_message_email job payload/);
    expect(await jobsOfUser(999_001)).toEqual([]);
  });

  it("a stored job whose payload does not match its kind fails with the reason, and its handler never runs", async () => {
    const now = Math.floor(Date.now() / 1000);
    await t.ctx.db.kysely
      .insertInto("jobs")
      .values({
        kind: "missed_message_email",
        payload: JSON.stringify({ userId: 999_002, extra: { nested: true }, messageIds: "not a list" }),
        run_at: now,
        max_attempts: 1,
        created_at: now,
      })
      .execute();
    await t.ctx.db.kysely
      .insertInto("jobs")
      .values({ kind: "delete_upload_blobs", payload: JSON.stringify({ keys: "999_003" }), run_at: now, max_attempts: 1, created_at: now })
      .execute();
    await t.drainJobs();
    const stored = at(await t.ctx.db.kysely.selectFrom("jobs").selectAll().where("payload", "like", "%999_003%").execute(), 0);
    expect(stored).toMatchObject({ status: "failed", attempts: 1 });
    expect(stored.last_error).toMatch(/invalid delete_upload_blobs job payload/);
    // Unknown keys are ignored (a payload may grow), missing or mistyped ones are not: this one runs.
    expect((await jobsOfUser(999_002))[0]).toMatchObject({ status: "done" });
  });
});
