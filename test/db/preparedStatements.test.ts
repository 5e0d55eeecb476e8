import { sql } from "kysely";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/db/connect.js";
import { sendChannelMessage } from "../support/factories.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";
import { TEST_ENGINE } from "../support/testDb.js";

const t = useTestServer();

/** Runs `statement` on a connection of its own, as another process (or psql) would. */
async function asAnotherProcess(statement: string): Promise<void> {
  const database = t.config.database;
  if (database.kind !== "postgres") throw new Error("PostgreSQL only");
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

// db/pgPreparedStatements.ts: statements seen twice are prepared once per connection.
describe.runIf(TEST_ENGINE === "postgres")("PostgreSQL prepared statements", () => {
  afterAll(async () => {
    await asAnotherProcess("alter table messages drop column if exists probe_column");
    await asAnotherProcess("drop table if exists probe_rows");
  });

  it("name a statement from its second use, and never transaction control", async () => {
    await t.ctx.db.kysely.connection().execute(async (db) => {
      for (let i = 0; i < 3; i++) await sql`select id from users where id = ${i}`.execute(db);
      const prepared = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(db);
      expect(prepared.rows.filter((r) => r.statement === "select id from users where id = $1").map((r) => r.name)).toEqual([
        expect.stringMatching(/^parley_\d+_\d+$/),
      ]);
    });
    // Group commit's BEGIN, SAVEPOINT, RELEASE and COMMIT, several times over.
    for (let i = 0; i < 3; i++)
      expectSuccess(await t.post("hamlet", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "prepared", content: `m${i}` }));
    await t.ctx.db.kysely.connection().execute(async (db) => {
      const prepared = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db);
      expect(prepared.rows.filter((r) => /^\s*(begin|savepoint|release|commit|rollback|pragma)/i.test(r.statement))).toEqual([]);
    });
  });

  it("take a list of values as one array parameter, so the text does not depend on its length", async () => {
    const { kysely } = t.ctx.db;
    const ids = (await kysely.selectFrom("users").select("id").orderBy("id").limit(5).execute()).map((r) => r.id);
    const inList = (list: number[]) => kysely.selectFrom("users").select("id").where("id", "in", list).orderBy("id");
    const notInList = (list: number[]) => kysely.selectFrom("users").select("id").where("id", "in", ids).where("id", "not in", list).orderBy("id");
    expect(inList(ids.slice(0, 2)).compile().sql).toBe(inList(ids).compile().sql);
    expect(inList(ids).compile().sql).toContain('"id" = any($1)');
    expect(notInList(ids.slice(0, 1)).compile().sql).toContain('"id" <> all($2)');
    await kysely.connection().execute(async (db) => {
      for (const n of [1, 3, 5]) {
        expect((await db.executeQuery(inList(ids.slice(0, n)).compile())).rows.map((r) => r.id)).toEqual(ids.slice(0, n));
        expect((await db.executeQuery(notInList(ids.slice(0, n)).compile())).rows.map((r) => r.id)).toEqual(ids.slice(n));
      }
      const prepared = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db);
      expect(prepared.rows.map((r) => r.statement)).toContain(inList(ids).compile().sql);
    });
  });

  it("are not made with PARLEY_POSTGRES_PREPARED_STATEMENTS=0", async () => {
    const database = t.config.database;
    if (database.kind !== "postgres") throw new Error("PostgreSQL only");
    const db = openDb({ ...database, preparedStatements: false });
    try {
      await db.kysely.connection().execute(async (conn) => {
        for (let i = 0; i < 3; i++) await sql`select id from users where id = ${i}`.execute(conn);
        expect((await sql`select name from pg_prepared_statements`.execute(conn)).rows).toEqual([]);
      });
    } finally {
      await db.close();
    }
  });

  it("are given up when another process changes a table under a prepared select *, and nothing fails", async () => {
    // Outside a transaction: the statement runs again unnamed.
    await asAnotherProcess("create table probe_rows (id integer)");
    await asAnotherProcess("insert into probe_rows values (1)");
    await t.ctx.db.kysely.connection().execute(async (db) => {
      const probe = () => sql<{ id: number }>`select * from probe_rows where id > ${0}`.execute(db);
      for (let i = 0; i < 3; i++) expect((await probe()).rows).toEqual([{ id: 1 }]);
      await asAnotherProcess("alter table probe_rows add column extra integer");
      expect((await probe()).rows).toEqual([{ id: 1, extra: null }]);
    });

    // Inside group commit: a send's `insert into messages … returning *` and the reads of a
    // fetch, prepared on the connections they ran on, then the table gains a column.
    const send = async (content: string) => sendChannelMessage(t, "hamlet", "Denmark", "schema change", content);
    const fetch = async () =>
      expectSuccess(
        await t.get("hamlet", "/api/v1/messages", {
          anchor: "newest",
          num_before: 20,
          num_after: 0,
          narrow: JSON.stringify([{ operator: "topic", operand: "schema change" }]),
        }),
      ).messages.map((m: { id: number }) => m.id) as number[];
    const before: number[] = [];
    for (let i = 0; i < 4; i++) {
      before.push(await send(`before ${i}`));
      await fetch();
    }
    await asAnotherProcess("alter table messages add column probe_column integer");
    const after: number[] = [];
    for (let i = 0; i < 4; i++) {
      after.push(await send(`after ${i}`));
      expect(await fetch()).toEqual([...before, ...after]);
    }
  });
});
