import type { CompiledQuery } from "kysely";
import { describe, expect, it } from "vitest";
import { compiledQuery } from "../../src/db/compiledQuery.js";
import { useTestServer } from "../support/testApp.js";
import { TEST_ENGINE } from "../support/testDb.js";
import { at } from "../support/at.js";

const t = useTestServer();

// db/compiledQuery.ts: a shape compiled once per database, run with new values.
describe("compiled query shapes", () => {
  const usersOfRealm = compiledQuery((db, p: { realmId: number; after: number }) =>
    db.selectFrom("users").select("id").where("realm_id", "=", p.realmId).where("id", ">", p.after).where("is_active", "=", 1).orderBy("id").limit(3),
  );

  it("return what the same builder returns, for each call's values, in and out of a transaction", async () => {
    const { kysely } = t.ctx.db;
    const realmId = (await kysely.selectFrom("realms").select("id").where("string_id", "=", "zulip").executeTakeFirstOrThrow()).id;
    const expected = (after: number, q = kysely) =>
      q.selectFrom("users").select("id").where("realm_id", "=", realmId).where("id", ">", after).where("is_active", "=", 1).orderBy("id").limit(3).execute();
    for (const after of [0, 5, 10]) expect(await usersOfRealm.rows(kysely, { realmId, after })).toEqual(await expected(after));
    await kysely.transaction().execute(async (trx) => {
      expect(await usersOfRealm.rows(trx, { realmId, after: 7 })).toEqual(await expected(7, trx));
    });
    expect(await usersOfRealm.rows(kysely, { realmId: -1, after: 0 })).toEqual([]);
  });

  it("keep the constants of the shape and number the parameters as the dialect does", async () => {
    const seen: Array<{ sql: string; parameters: readonly unknown[] }> = [];
    const { kysely } = t.ctx.db;
    const logged = kysely.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => args.result,
    });
    // The statement the driver gets: spy on the executor's public executeQuery.
    const executor = logged.getExecutor();
    const original = executor.executeQuery.bind(executor);
    executor.executeQuery = ((compiled: CompiledQuery) => {
      seen.push({ sql: compiled.sql, parameters: compiled.parameters });
      return original(compiled);
    }) as typeof executor.executeQuery;
    await usersOfRealm.rows(logged, { realmId: 2, after: 9 });
    const placeholders = TEST_ENGINE === "postgres" ? ["$1", "$2", "$3", "$4"] : ["?", "?", "?", "?"];
    expect(seen).toHaveLength(1);
    expect(at(seen, 0).sql).toBe(
      `select "id" from "users" where "realm_id" = ${placeholders[0]} and "id" > ${placeholders[1]} and "is_active" = ${placeholders[2]} order by "id" limit ${placeholders[3]}`,
    );
    expect(at(seen, 0).parameters).toEqual([2, 9, 1, 3]);
  });

  it.runIf(TEST_ENGINE === "postgres")("refuse a list parameter (PostgreSQL sends a list as one array, which a stand-in cannot fill)", async () => {
    const inList = compiledQuery((db, p: { id: number }) => db.selectFrom("users").select("id").where("id", "in", [p.id]));
    await expect(inList.rows(t.ctx.db.kysely, { id: 1 })).rejects.toThrow(/list parameter/);
  });
});
