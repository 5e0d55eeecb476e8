// Builds the benchmark organization into the configured database (PARLEY_DATABASE_URL or
// PARLEY_DATA_DIR): Zulip's development realm plus 1,000 users, 100 channels and (by default)
// 1,000,000 messages with their per-user rows, written in bulk. Used by scripts/bench.mjs.
//   node --import tsx scripts/bench-org.ts [--messages N] [--with-bench-500]
// Channel sizes: "bench-all" has every user; "bench-100" has 100 members; "bench-50" 50; 97 have 10.
// --with-bench-500 adds a 101st channel, "bench-500", with 500 members (not hamlet) and no messages,
// for the side-by-side job (scripts/bench-peer.mjs); off by default so that the other scenarios'
// organization stays as their figures were measured on.
// hamlet@zulip.com (the benchmark's reader) is in bench-all, bench-100 and 10 small channels.
import { parseArgs } from "node:util";
import { type Insertable, sql } from "kysely";
import pino from "pino";
import { createContext } from "../src/app.js";
import { transaction } from "../src/appContext.js";
import { doCreateUser } from "../src/actions/createUser.js";
import { ensureOrganization } from "../src/bootstrap.js";
import { loadConfig } from "../src/config.js";
import type { MessagesTable, UserMessagesTable } from "../src/db/schema.js";
import { MessageFlag } from "../src/models/messageFlags.js";
import { RecipientType } from "../src/models/roles.js";
import { streamStore } from "../src/store/streams.js";
import { createUserMessageFlagIndexes, dropUserMessageFlagIndexes } from "../src/db/migrations/2026-11-25T1230-add-user-message-flag-indexes.js";
import { nowSeconds } from "../src/util/time.js";
import { messageSearchStore } from "../src/store/messageSearch.js";

const { values } = parseArgs({ options: { messages: { type: "string", default: "1000000" }, "with-bench-500": { type: "boolean", default: false } } });
const TOTAL_MESSAGES = Number(values.messages);
const USERS = 1000;
const CHANNELS = 100;

const config = loadConfig({ ...process.env, PARLEY_DEV: "1", PARLEY_LOG_LEVEL: "error" });
const ctx = await createContext(config, pino({ level: "error" }));
await ensureOrganization(ctx);
const q = ctx.db.kysely;
const realm = await q.selectFrom("realms").selectAll().where("string_id", "=", "zulip").executeTakeFirstOrThrow();
const hamlet = await q.selectFrom("users").selectAll().where("email", "=", "hamlet@zulip.com").executeTakeFirstOrThrow();
const started = Date.now();
const log = (text: string) => process.stderr.write(`\r\x1b[K[org ${((Date.now() - started) / 1000).toFixed(0)}s] ${text}`);

// Users: the dev realm's 10 plus generated ones up to 1,000.
const existing = await q.selectFrom("users").select("id").where("realm_id", "=", realm.id).where("is_bot", "=", 0).execute();
await transaction(ctx, async (tx) => {
  for (let i = existing.length; i < USERS; i++) {
    await doCreateUser(tx, realm, { email: `user${i}@zulip.com`, full_name: `Bench User ${i}`, password_hash: null });
  }
});
const userIds = (await q.selectFrom("users").select("id").where("realm_id", "=", realm.id).where("is_bot", "=", 0).orderBy("id").execute()).map((u) => u.id);
log(`${userIds.length} users`);

// Channels and subscriptions.
const everyone = await q.selectFrom("user_groups").select("id").where("realm_id", "=", realm.id).where("name", "=", "role:everyone").executeTakeFirstOrThrow();
const nobody = await q.selectFrom("user_groups").select("id").where("realm_id", "=", realm.id).where("name", "=", "role:nobody").executeTakeFirstOrThrow();
const admins = await q
  .selectFrom("user_groups")
  .select("id")
  .where("realm_id", "=", realm.id)
  .where("name", "=", "role:administrators")
  .executeTakeFirstOrThrow();
const others = userIds.filter((id) => id !== hamlet.id);
interface BenchChannel {
  name: string;
  recipientId: number;
  members: number[];
  weight: number;
}
const channels: BenchChannel[] = [];
await transaction(ctx, async (tx) => {
  for (let i = 0; i < CHANNELS + (values["with-bench-500"] ? 1 : 0); i++) {
    const name = i === CHANNELS ? "bench-500" : i === 0 ? "bench-all" : i === 1 ? "bench-100" : i === 2 ? "bench-50" : `bench-${String(i).padStart(3, "0")}`;
    const members =
      i === CHANNELS
        ? others.slice(0, 500)
        : i === 0
          ? userIds
          : i === 1
            ? [hamlet.id, ...others.slice(0, 99)]
            : i === 2
              ? [hamlet.id, ...others.slice(100, 149)]
              : [...(i < 12 ? [hamlet.id] : []), ...others.slice((i * 37) % 900, ((i * 37) % 900) + (i < 12 ? 9 : 10))];
    const stream = await tx.q
      .insertInto("streams")
      .values({
        realm_id: realm.id,
        name,
        date_created: nowSeconds() - 86400 * 60,
        creator_id: null,
        message_retention_days: null,
        can_add_subscribers_group_id: nobody.id,
        can_remove_subscribers_group_id: admins.id,
        can_administer_channel_group_id: nobody.id,
        can_send_message_group_id: everyone.id,
        can_subscribe_group_id: nobody.id,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const recipient = await tx.q.insertInto("recipients").values({ type: RecipientType.STREAM, type_id: stream.id }).returning("id").executeTakeFirstOrThrow();
    await tx.q.updateTable("streams").set({ recipient_id: recipient.id }).where("id", "=", stream.id).execute();
    for (let k = 0; k < members.length; k += 2000) {
      await tx.q
        .insertInto("subscriptions")
        .values(members.slice(k, k + 2000).map((user_id) => ({ user_id, recipient_id: recipient.id })))
        .execute();
    }
    // Message share: bench-all 0.2 %, bench-100 5 %, the rest evenly.
    channels.push({ name, recipientId: recipient.id, members, weight: i === CHANNELS ? 0 : i === 0 ? 0.002 : i === 1 ? 0.05 : 0.948 / (CHANNELS - 2) });
  }
});
log(`${channels.length} channels`);

// Messages: bulk rows with explicit ids, per-user rows for every subscriber.
const WORDS = "castle denmark verona ghost king queen sword poison letter ship storm island wind garden tower river bridge market song dream".split(" ");
const maxRow = await q
  .selectFrom("messages")
  .select((eb) => eb.fn.max("id").as("m"))
  .executeTakeFirst();
let nextId = Number(maxRow?.m ?? 0) + 1;
const firstNew = nextId;
const baseTime = nowSeconds() - 86400 * 30;
let seed = 42;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const BATCH = 2000;
// Loading is far faster without the partial flag indexes; they are built once at the end.
await dropUserMessageFlagIndexes(q);
let written = 0;
let userMessageRows = 0;
for (const channel of channels) {
  const count = Math.round(TOTAL_MESSAGES * channel.weight);
  for (let done = 0; done < count; done += BATCH) {
    const n = Math.min(BATCH, count - done);
    const messages: Insertable<MessagesTable>[] = [];
    const rows: Insertable<UserMessagesTable>[] = [];
    for (let j = 0; j < n; j++) {
      const id = nextId++;
      const sender = channel.members[Math.floor(random() * channel.members.length)];
      if (sender === undefined) throw new Error(`channel ${channel.recipientId} has no members`);
      const words = Array.from({ length: 8 }, () => WORDS[Math.floor(random() * WORDS.length)]);
      const mentionsHamlet = random() < 0.01;
      const content = (mentionsHamlet ? "@**King Hamlet** " : "") + words.join(" ");
      messages.push({
        id,
        realm_id: realm.id,
        sender_id: sender,
        recipient_id: channel.recipientId,
        subject: `topic ${Math.floor(random() * 20)}`,
        content,
        rendered_content: `<p>${mentionsHamlet ? '<span class="user-mention" data-user-id="10">@King Hamlet</span> ' : ""}${words.join(" ")}</p>`,
        rendered_content_version: 1,
        date_sent: baseTime + Math.floor(((id - firstNew) * (86400 * 30)) / TOTAL_MESSAGES),
        sending_client: "bench",
        is_channel_message: 1 as const,
      });
      const old = written + j < TOTAL_MESSAGES * 0.98;
      for (const user of channel.members) {
        let flags = old || user === sender ? MessageFlag.READ : 0;
        if (mentionsHamlet && user === hamlet.id) flags |= MessageFlag.MENTIONED;
        rows.push({ user_id: user, message_id: id, flags });
      }
    }
    await transaction(ctx, async (tx) => {
      await tx.q.insertInto("messages").values(messages).execute();
      await messageSearchStore.index(tx.q, messages as Array<{ id: number; subject: string; rendered_content: string }>);
      for (let k = 0; k < rows.length; k += 5000)
        await tx.q
          .insertInto("user_messages")
          .values(rows.slice(k, k + 5000))
          .execute();
    });
    written += n;
    userMessageRows += rows.length;
    if ((written / BATCH) % 25 === 0) log(`${written.toLocaleString()} messages, ${userMessageRows.toLocaleString()} per-user rows`);
  }
}
await ctx.db.dialect.bumpIdSequence(q, "messages", nextId - 1);
for (const channel of channels) {
  const first = await q
    .selectFrom("messages")
    .select((eb) => eb.fn.min("id").as("m"))
    .where("recipient_id", "=", channel.recipientId)
    .executeTakeFirst();
  await q
    .updateTable("streams")
    .set({ first_message_id: first?.m == null ? null : Number(first.m) })
    .where("recipient_id", "=", channel.recipientId)
    .execute();
}
// Messages were written in bulk, past the send path: count them per channel and day.
await streamStore.rebuildDailyCounts(q);
log("building the flag indexes…");
await createUserMessageFlagIndexes(q);
// A real organization's tables are vacuumed and analysed by PostgreSQL's autovacuum as they grow;
// a bulk load is done before it wakes. (SQLite keeps no such statistics.)
if (ctx.db.dialect.name === "postgres") {
  log("vacuum analyze…");
  await sql`vacuum analyze`.execute(q);
}
log(`done: ${written.toLocaleString()} messages, ${userMessageRows.toLocaleString()} per-user rows\n`);
console.log(JSON.stringify({ messages: written, userMessageRows, seconds: (Date.now() - started) / 1000 }));
await ctx.db.close();
