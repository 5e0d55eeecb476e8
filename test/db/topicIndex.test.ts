import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { narrowSql } from "../../src/store/narrowConditions.js";
import { useTestServer } from "../support/testApp.js";
import { TEST_ENGINE } from "../support/testDb.js";

const t = useTestServer();

// Topics compare case-insensitively; a topic narrow must reach its messages through the
// (recipient_id, lower(subject), id) index, not by reading the whole channel (migration
// 2026-11-28T0400). SQLite's plan does not depend on table statistics, so it is checked there.
describe.runIf(TEST_ENGINE === "sqlite")("a topic narrow's messages", () => {
  it("are found through the case-insensitive topic index, newest first without a sort", async () => {
    const where = narrowSql.all([narrowSql.recipient(1), narrowSql.topic("Some Topic")]);
    const plan = await sql<{ detail: string }>`explain query plan
      select m.id from messages m where ${where} and m.id < ${1e15} order by m.id desc limit 100`.execute(t.ctx.db.kysely);
    const details = plan.rows.map((r) => r.detail);
    expect(details.join("\n")).toMatch(/SEARCH m USING (COVERING )?INDEX messages_recipient_lower_topic \(recipient_id=\? AND <expr>=\? AND id<\?\)/);
    expect(details.some((d) => d.includes("TEMP B-TREE"))).toBe(false);
  });
});

// A send reads its topic's followers by (stream_id, lower(topic_name)) whoever the user is
// (receiverFilterStore.forSend); migration 2026-11-29T0600 gives that read its own index.
describe.runIf(TEST_ENGINE === "sqlite")("a topic's followers", () => {
  it("are found through the (stream_id, lower(topic_name)) index, not by scanning every user's settings", async () => {
    const plan = await sql<{ detail: string }>`explain query plan
      select user_id from user_topics where stream_id = ${1} and lower(topic_name) = lower(${"Some Topic"}) and visibility_policy = ${3}`.execute(
      t.ctx.db.kysely,
    );
    expect(plan.rows.map((r) => r.detail).join("\n")).toMatch(/SEARCH user_topics USING INDEX user_topics_stream_lower_topic \(stream_id=\? AND <expr>=\?\)/);
  });
});
