import { beforeAll, describe, expect, it } from "vitest";
import { consentedUserIds } from "../../src/lib/export/realmExport.js";
import { selectMessageIds, type SelectionInput } from "../../src/lib/export/messageSelection.js";
import { ExportType } from "../../src/models/realmExport.js";
import { exportReadStore as read } from "../../src/store/exportReads.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";

// A data export reads messages by lists of ids: the recipients it exports, and for a full export
// with consent, the consenting users as senders and readers. An organization's worth of users
// is more than SQLite binds in one statement (32,766), so every list is read in batches.
const t = useTestServer();
let realmId = 0;
const sent: Record<string, number> = {};

const send = async (who: string, params: Record<string, string>) => expectSuccess(await t.post(who, "/api/v1/messages", params)).id as number;
const dm = (to: string[]) => ({ type: "direct", to: JSON.stringify(to.map((name) => `${name}@zulip.com`)) });

beforeAll(async () => {
  realmId = (await t.user("hamlet")).realm_id;
  for (const who of ["hamlet", "cordelia"]) expectSuccess(await t.patch(who, "/api/v1/settings", { allow_private_data_export: true }));
  sent.toConsenting = await send("othello", { ...dm(["hamlet"]), content: "to a consenting user" });
  sent.fromConsenting = await send("hamlet", { ...dm(["othello"]), content: "from a consenting user" });
  sent.betweenOthers = await send("othello", { ...dm(["iago"]), content: "between others" });
  sent.group = await send("iago", { ...dm(["othello", "cordelia"]), content: "a group with a consenting user" });
  sent.channel = await send("othello", { type: "stream", to: "Verona", topic: "batches", content: "in a channel" });
});

async function selectionInput(consented: ReadonlySet<number>): Promise<SelectionInput> {
  const q = t.ctx.db.kysely;
  return {
    realmId,
    type: ExportType.FULL_WITH_CONSENT,
    users: await read.users(q, realmId),
    streams: await read.streams(q, realmId),
    groups: await read.directMessageGroups(q, realmId),
    subscriptions: await read.subscriptions(q, realmId),
    consented,
    systemBots: await read.systemBots(q),
  };
}

describe("an export's reads by lists of ids", () => {
  it("give each message once and in order however the lists are batched", async () => {
    const q = t.ctx.db.kysely;
    const users = await read.users(q, realmId);
    const userIds = users.map((u) => u.id);
    const recipients = [...users.map((u) => u.recipient_id), ...(await read.streams(q, realmId)).map((s) => s.recipient_id)].filter(
      (id): id is number => id !== null,
    );
    for (const opts of [{}, { senderIds: userIds }, { readByAnyOf: userIds }, { senderIds: userIds.slice(0, 5), readByAnyOf: userIds.slice(3) }]) {
      const whole = await read.messageIdsTo(q, realmId, recipients, opts);
      expect(whole.length).toBeGreaterThan(4);
      expect(whole).toEqual([...new Set(whole)].sort((a, b) => a - b));
      for (const batchSize of [2, 7]) expect(await read.messageIdsTo(q, realmId, recipients, { ...opts, batchSize })).toEqual(whole);
    }
  });

  it("select a full export's messages with more consenting users than SQLite binds in one statement", async () => {
    const consenting = consentedUserIds(await read.users(t.ctx.db.kysely, realmId));
    expect(consenting.size).toBe(2);
    const expected = await selectMessageIds(t.ctx.db.kysely, await selectionInput(consenting));
    expect(expected.messageIds).toEqual(expect.arrayContaining([sent.toConsenting, sent.fromConsenting, sent.group, sent.channel]));
    expect(expected.messageIds).not.toContain(sent.betweenOthers);
    // 40,000 more consenting ids (of no user here): the same messages, read in batches.
    const many = new Set([...consenting, ...Array.from({ length: 40_000 }, (_, i) => 10_000_000 + i)]);
    const selected = await selectMessageIds(t.ctx.db.kysely, await selectionInput(many));
    expect(selected.messageIds).toEqual(expected.messageIds);
  });
});
