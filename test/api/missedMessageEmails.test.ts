import { describe, expect, it } from "vitest";
import { useSmtpSink } from "../support/smtpSink.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";

const smtp = useSmtpSink();
const t = useTestServer(smtp.overrides);

/** The batching period passes: make the user's missed-message job due and run it. */
async function batchPeriodPasses(): Promise<void> {
  await t.ctx.db.kysely.updateTable("jobs").set({ run_at: 0 }).where("kind", "=", "missed_message_email").where("status", "=", "pending").execute();
  await t.drainJobs();
}

const mailsTo = (address: string) => smtp.sink().messages.filter((m) => m.rcptTo.includes(address));

describe("missed-message emails", () => {
  it("batches an offline user's direct messages into one email, read from the SMTP server", async () => {
    const hamlet = await t.user("hamlet");
    await t.post("othello", "/api/v1/messages", { type: "direct", to: [hamlet.id], content: "First **ping**" });
    await t.post("othello", "/api/v1/messages", { type: "direct", to: [hamlet.id], content: "Second ping" });
    const job = await t.ctx.db.kysely.selectFrom("jobs").selectAll().where("kind", "=", "missed_message_email").where("status", "=", "pending").execute();
    expect(job).toHaveLength(1); // one job for the batch
    expect(at(job, 0).run_at - at(job, 0).created_at).toBe(120);
    await batchPeriodPasses();
    const mail = await smtp.sink().waitFor((m) => m.rcptTo.includes(hamlet.delivery_email));
    expect(mailsTo(hamlet.delivery_email)).toHaveLength(1);
    expect(mail.parsed.subject).toBe("DMs with Othello, the Moor of Venice");
    expect(mail.parsed.text).toContain("Othello, the Moor of Venice: First **ping**");
    expect(mail.parsed.text).toContain("Othello, the Moor of Venice: Second ping");
    expect(mail.parsed.html).toContain("<strong>ping</strong>");
    expect(mail.parsed.text).toMatch(/Reply in Zulip: http:\/\/localhost:9991\/#narrow\/near\/\d+/);
  });

  it("sends mentions per conversation, skips what was read and honours the setting", async () => {
    const cordelia = await t.user("cordelia");
    const readId = expectSuccess(
      await t.post("othello", "/api/v1/messages", { type: "stream", to: "Verona", topic: "news", content: "@**Cordelia, Lear's daughter** read this one" }),
    ).id;
    expectSuccess(
      await t.post("othello", "/api/v1/messages", { type: "stream", to: "Verona", topic: "news", content: "@**Cordelia, Lear's daughter** and this one not" }),
    );
    expectSuccess(await t.post("othello", "/api/v1/messages", { type: "stream", to: "Verona", topic: "news", content: "no mention: no email" }));
    expectSuccess(await t.post("cordelia", "/api/v1/messages/flags", { messages: [readId], op: "add", flag: "read" }));
    await batchPeriodPasses();
    const mail = await smtp.sink().waitFor((m) => m.rcptTo.includes(cordelia.delivery_email));
    expect(mail.parsed.subject).toBe("#Verona > news");
    expect(mail.parsed.text).toContain("and this one not");
    expect(mail.parsed.text).not.toContain("read this one");
    expect(mail.parsed.text).not.toContain("no mention");

    expectSuccess(await t.patch("iago", "/api/v1/settings", { enable_offline_email_notifications: false }));
    const iago = await t.user("iago");
    await t.post("othello", "/api/v1/messages", { type: "direct", to: [iago.id], content: "you will not be emailed" });
    await batchPeriodPasses();
    expect(mailsTo(iago.delivery_email)).toEqual([]);
  });

  it("names a channel message's sender a restricted guest may not access as Unknown user (can_access_all_users_group)", async () => {
    const polonius = await t.user("polonius");
    // Prospero shares no channel with the guest Polonius, yet may post to Verona, where Polonius is.
    expectSuccess(await t.delete("prospero", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify(["Verona"]) }));
    const mentionAndSend = async (topic: string) => {
      expectSuccess(await t.post("prospero", "/api/v1/messages", { type: "stream", to: "Verona", topic, content: `hello @**Polonius** in ${topic}` }));
      await batchPeriodPasses();
      return smtp.sink().waitFor((m) => m.rcptTo.includes(polonius.delivery_email) && m.parsed.subject === `#Verona > ${topic}`);
    };
    const members = await t.systemGroupId("role:members");
    const mail = await t.withRealmSettings({ can_access_all_users_group: members }, () => mentionAndSend("restricted"));
    expect(mail.parsed.text).toContain("Unknown user: hello @**Polonius** in restricted");
    expect(mail.parsed.html).toContain("<b>Unknown user</b>");
    expect(`${mail.parsed.text}${mail.parsed.html}`).not.toContain("Prospero");
    // Without the restriction the sender is named.
    const open = await mentionAndSend("open");
    expect(open.parsed.text).toContain("Prospero from The Tempest: hello @**Polonius** in open");
  });

  it("sends nothing while the user is on Zulip, and what their closed client had not shown once they are idle", async () => {
    const shiva = await t.user("shiva");
    // The web app: a queue taking every event, and presence reported active.
    const queue = expectSuccess(await t.post("shiva", "/api/v1/register", { apply_markdown: "true" })).queue_id;
    expectSuccess(await t.post("shiva", "/api/v1/users/me/presence", { status: "active", new_user_input: "true" }));
    const dm = async (content: string) => expectSuccess(await t.post("othello", "/api/v1/messages", { type: "direct", to: [shiva.id], content })).id as number;
    const shown = await dm("you are here");
    await batchPeriodPasses();
    expect(mailsTo(shiva.delivery_email)).toEqual([]);
    // The client acknowledges the first message; the second is still in its queue when it closes.
    const events = expectSuccess(await t.get("shiva", "/api/v1/events", { queue_id: queue, last_event_id: -1, dont_block: "true" })).events;
    expect(events.map((e: any) => e.message?.id)).toContain(shown);
    await dm("sent just before the tab was closed");
    await batchPeriodPasses();
    expect(mailsTo(shiva.delivery_email)).toEqual([]);
    expectSuccess(await t.get("shiva", "/api/v1/events", { queue_id: queue, last_event_id: Math.max(...events.map((e: any) => e.id)), dont_block: "true" }));
    expectSuccess(await t.delete("shiva", "/api/v1/events", { queue_id: queue }));
    await t.drainJobs();
    await batchPeriodPasses();
    const mail = await smtp.sink().waitFor((m) => m.rcptTo.includes(shiva.delivery_email));
    expect(mail.parsed.text).toContain("sent just before the tab was closed");
    expect(mail.parsed.text).not.toContain("you are here");
    expect(mailsTo(shiva.delivery_email)).toHaveLength(1);
  }, 60_000);

  it("drops the emails it held back once the closing client had shown every message", async () => {
    const cordelia = await t.user("cordelia");
    const mailsBefore = mailsTo(cordelia.delivery_email).length;
    const queue = expectSuccess(await t.post("cordelia", "/api/v1/register", {})).queue_id;
    expectSuccess(await t.post("cordelia", "/api/v1/users/me/presence", { status: "active", new_user_input: "true" }));
    await t.post("othello", "/api/v1/messages", { type: "direct", to: [cordelia.id], content: "seen in the open tab" });
    await batchPeriodPasses();
    const held = () => t.ctx.db.kysely.selectFrom("missed_message_emails").select("id").where("user_id", "=", cordelia.id).execute();
    expect(await held()).toHaveLength(1);
    const events = expectSuccess(await t.get("cordelia", "/api/v1/events", { queue_id: queue, last_event_id: -1, dont_block: "true" })).events;
    expectSuccess(await t.get("cordelia", "/api/v1/events", { queue_id: queue, last_event_id: Math.max(...events.map((e: any) => e.id)), dont_block: "true" }));
    expectSuccess(await t.delete("cordelia", "/api/v1/events", { queue_id: queue }));
    await t.drainJobs();
    await batchPeriodPasses();
    expect(await held()).toEqual([]);
    expect(mailsTo(cordelia.delivery_email)).toHaveLength(mailsBefore);
  }, 60_000);

  it("emails a user idle by presence though a queue is open, once", async () => {
    const prospero = await t.user("prospero");
    // A queue, but no activity reported for longer than Zulip's 140 seconds.
    const queue = expectSuccess(await t.post("prospero", "/api/v1/register", {})).queue_id;
    await t.post("othello", "/api/v1/messages", { type: "direct", to: [prospero.id], content: "are you at your desk?" });
    await batchPeriodPasses();
    const mail = await smtp.sink().waitFor((m) => m.rcptTo.includes(prospero.delivery_email));
    expect(mail.parsed.text).toContain("are you at your desk?");
    // The queue going away later (the message still unacknowledged in it) sends no second email.
    expectSuccess(await t.delete("prospero", "/api/v1/events", { queue_id: queue }));
    await t.drainJobs();
    await batchPeriodPasses();
    expect(mailsTo(prospero.delivery_email)).toHaveLength(1);
  }, 60_000);
});
