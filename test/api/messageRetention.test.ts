import { describe, expect, it } from "vitest";
import { channelId, sendChannelMessage } from "../support/factories.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";

const t = useTestServer();
const DAY = 86400;

async function send(who: string, to: string, content: string): Promise<number> {
  return await sendChannelMessage(t, who, to, "retention", content);
}

/** Time passes for a message: it was sent `days` ago. */
async function age(messageId: number, days: number): Promise<void> {
  await t.ctx.db.kysely
    .updateTable("messages")
    .set({ date_sent: Math.floor(Date.now() / 1000) - days * DAY })
    .where("id", "=", messageId)
    .execute();
}

/** Makes the waiting retention job due and runs it. */
async function runRetention(): Promise<void> {
  const waiting = await t.ctx.db.kysely.selectFrom("jobs").select("id").where("kind", "=", "message_retention").where("status", "=", "pending").execute();
  expect(waiting).toHaveLength(1);
  await t.ctx.db.kysely.updateTable("jobs").set({ run_at: 0 }).where("id", "=", at(waiting, 0).id).execute();
  await t.drainJobs();
}

async function exists(who: string, id: number): Promise<boolean> {
  return (await t.get(who, `/api/v1/messages/${id}`)).status === 200;
}

describe("message retention", () => {
  it("keeps everything while the organization retains forever", async () => {
    const id = await send("hamlet", "Verona", "old but kept");
    await age(id, 3650);
    await runRetention();
    expect(await exists("hamlet", id)).toBe(true);
  });

  it("deletes messages past the organization's and channels' periods, their files, and schedules itself again", async () => {
    expectSuccess(await t.patch("desdemona", "/api/v1/realm", { message_retention_days: 30 }));
    expectSuccess(await t.patch("desdemona", `/api/v1/streams/${await channelId(t, "Denmark")}`, { message_retention_days: JSON.stringify("unlimited") }));
    expectSuccess(await t.patch("desdemona", `/api/v1/streams/${await channelId(t, "Scotland")}`, { message_retention_days: 5 }));

    const form = new FormData();
    form.append("filename", new Blob([new Uint8Array(Buffer.from("old file"))], { type: "text/plain" }), "old.txt");
    const uploaded = await (
      await fetch(`${t.baseUrl}/api/v1/user_uploads`, { method: "POST", headers: { Authorization: await t.authHeader("hamlet") }, body: form })
    ).json();

    const veronaOld = await send("hamlet", "Verona", `expired [file](${uploaded.url})`);
    const veronaRecent = await send("hamlet", "Verona", "recent");
    const denmarkOld = await send("hamlet", "Denmark", "kept forever");
    const scotlandWeek = await send("iago", "Scotland", "a week old");
    const scotlandToday = await send("iago", "Scotland", "today");
    const othello = await t.user("othello");
    const dmOld = expectSuccess(await t.post("hamlet", "/api/v1/messages", { type: "direct", to: [othello.id], content: "old direct" })).id;
    const dmRecent = expectSuccess(await t.post("hamlet", "/api/v1/messages", { type: "direct", to: [othello.id], content: "new direct" })).id;
    await age(veronaOld, 31);
    await age(veronaRecent, 29);
    await age(denmarkOld, 400);
    await age(scotlandWeek, 7);
    await age(dmOld, 45);
    await age(dmRecent, 2);

    const { events } = await t.captureEvents(runRetention);
    expect(await exists("hamlet", veronaOld)).toBe(false);
    expect(await exists("hamlet", veronaRecent)).toBe(true);
    expect(await exists("hamlet", denmarkOld)).toBe(true);
    expect(await exists("iago", scotlandWeek)).toBe(false);
    expect(await exists("iago", scotlandToday)).toBe(true);
    expect(await exists("hamlet", dmOld)).toBe(false);
    expect(await exists("hamlet", dmRecent)).toBe(true);
    const deleted = events.filter((e) => e.event.type === "delete_message").flatMap((e) => e.event.message_ids as number[]);
    expect(deleted).toEqual(expect.arrayContaining([veronaOld, scotlandWeek, dmOld]));
    for (const kept of [veronaRecent, denmarkOld, scotlandToday, dmRecent]) expect(deleted).not.toContain(kept);

    // The file only the expired message linked is gone.
    expect((await fetch(t.baseUrl + uploaded.url, { headers: { Authorization: await t.authHeader("hamlet") } })).status).toBe(404);
    const next = await t.ctx.db.kysely.selectFrom("jobs").selectAll().where("kind", "=", "message_retention").where("status", "=", "pending").execute();
    expect(next).toHaveLength(1);
    expect(at(next, 0).run_at).toBeGreaterThan(Date.now() / 1000 + 3000);
  });
});
