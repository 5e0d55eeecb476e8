import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTransport } from "nodemailer";
import { type EmailGateway, startEmailGateway } from "../../src/http/emailGateway.js";
import { channelId } from "../support/factories.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

/**
 * GET /streams/{stream_id}/email_address and the incoming email gateway, through a real SMTP
 * connection (nodemailer) to the gateway's listener.
 */

const DOMAIN = "mail.parley.test";
const t = useTestServer({ emailGateway: { port: 0, host: "127.0.0.1", domain: DOMAIN } });
let gateway: EmailGateway;

beforeAll(async () => {
  gateway = await startEmailGateway(t.ctx, t.config.emailGateway!);
});
afterAll(async () => {
  await gateway?.close();
});

const address = async (who: string, stream: string, params: Record<string, unknown> = {}) =>
  expectSuccess(await t.get(who, `/api/v1/streams/${await channelId(t, stream)}/email_address`, params as never)).email as string;

async function sendMail(
  to: string,
  mail: { subject?: string; text?: string; html?: string; from?: string; attachments?: Array<{ filename: string; content: string | Buffer }> },
) {
  const transport = createTransport({ host: "127.0.0.1", port: gateway.port, secure: false, ignoreTLS: true });
  try {
    return await transport.sendMail({ from: mail.from ?? "Someone <someone@example.org>", to, ...mail });
  } finally {
    transport.close();
  }
}

async function lastMessage(who: string, stream: string): Promise<any> {
  const res = expectSuccess(
    await t.get(who, "/api/v1/messages", {
      anchor: "newest",
      num_before: 1,
      num_after: 0,
      narrow: JSON.stringify([{ operator: "channel", operand: stream }]),
      apply_markdown: false,
    }),
  );
  return res.messages[0];
}

describe("GET /streams/{stream_id}/email_address", () => {
  it("gives <channel>.<token>.show-sender@<domain>, one token per creator and sender", async () => {
    const first = await address("hamlet", "Denmark");
    expect(first).toMatch(new RegExp(`^denmark\\.[0-9a-f]{32}\\.show-sender@${DOMAIN.replaceAll(".", "\\.")}$`));
    expect(await address("hamlet", "Denmark")).toBe(first);
    const own = await address("hamlet", "Denmark", { sender_id: (await t.user("hamlet")).id });
    expect(own).not.toBe(first);
    expect(await address("othello", "Denmark")).not.toBe(first);
  });

  it("names a channel whose name is not ASCII 'channel', and joins words with '-'", async () => {
    expectSuccess(
      await t.post("iago", "/api/v1/users/me/subscriptions", {
        subscriptions: JSON.stringify([{ name: "ünïcode ☃" }, { name: "core team" }, { name: "core & team!" }]),
      }),
    );
    expect(await address("iago", "ünïcode ☃")).toMatch(/^channel\.[0-9a-f]{32}\.show-sender@/);
    expect(await address("iago", "core team")).toMatch(/^core-team\.[0-9a-f]{32}\.show-sender@/);
    // "core-team-" loses its last "-" to the slug, so (as in Zulip) the name is left out.
    expect(await address("iago", "core & team!")).toMatch(/^channel\.[0-9a-f]{32}\.show-sender@/);
  });

  it("refuses channels the user cannot read, other users' bots and unknown senders", async () => {
    expectSuccess(await t.post("iago", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "mail secrets" }]), invite_only: true }));
    expectError(await t.get("hamlet", `/api/v1/streams/${await channelId(t, "mail secrets")}/email_address`), 400, "Invalid channel ID");
    const bot = expectSuccess(await t.post("othello", "/api/v1/bots", { full_name: "Othello's Mailer", short_name: "othellomailer" })).user_id;
    expectError(
      await t.get("hamlet", `/api/v1/streams/${await channelId(t, "Denmark")}/email_address`, { sender_id: bot }),
      400,
      "Insufficient permission",
      "BAD_REQUEST",
    );
    expectError(await t.get("hamlet", `/api/v1/streams/${await channelId(t, "Denmark")}/email_address`, { sender_id: 999999 }), 400, "No such bot");
    expectError(
      await t.get("hamlet", `/api/v1/streams/${await channelId(t, "Denmark")}/email_address`, { sender_id: "x" }),
      400,
      "sender_id is not valid JSON",
    );
  });
});

describe("incoming email gateway", () => {
  it("posts a mail as the Email Gateway bot: topic from the subject, sender shown, footer dropped, attachments uploaded", async () => {
    const to = await address("hamlet", "Denmark");
    await sendMail(to, {
      subject: "Re: Quarterly report",
      text: "The numbers are in.\n\n-- \nA signature",
      attachments: [{ filename: "report [final].txt", content: "figures" }],
    });
    const message = await lastMessage("hamlet", "Denmark");
    expect(message.sender_email).toBe("emailgateway@zulip.com");
    expect(message.subject).toBe("Quarterly report");
    const [first, body, blank, link] = message.content.split("\n");
    expect(blank).toBe("");
    expect(first).toBe("From: Someone <someone@example.org>");
    expect(body).toBe("The numbers are in.");
    expect(link).toMatch(/^\[report final\.txt\]\(\/user_uploads\/\d+\/[0-9a-f]{2}\/[A-Za-z0-9_-]{24}\/report-final\.txt\)$/);
    const url = /\((\/user_uploads\/[^)]+)\)/.exec(link)![1];
    const download = await fetch(`${t.baseUrl}${url}`, { headers: { Authorization: await t.authHeader("hamlet") } });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe("figures");
  });

  it("posts as the user when the address was made with sender_id = the user; a subject-less mail gets Zulip's topic", async () => {
    const to = await address("hamlet", "Verona", { sender_id: (await t.user("hamlet")).id });
    await sendMail(to.replace(".show-sender", ""), { text: "Sent from my phone" });
    const message = await lastMessage("hamlet", "Verona");
    expect(message.sender_email).toBe((await t.user("hamlet")).email);
    expect(message.subject).toBe("Email with no subject");
    expect(message.content).toBe("Sent from my phone");
  });

  it("takes the HTML part's text when there is no plain-text part", async () => {
    const to = await address("hamlet", "Verona");
    await sendMail(to, { subject: "html only", html: "<p>Hello <b>there</b></p>" });
    const message = await lastMessage("hamlet", "Verona");
    expect(message.sender_email).toBe("emailgateway@zulip.com");
    expect(message.content).toBe("From: Someone <someone@example.org>\nHello there");
  });

  it("drops the quoted message of a reply, unless the address says include-quotes or the mail is forwarded", async () => {
    const to = await address("hamlet", "Verona");
    const text = "Sounds good.\n\nOn Mon, 1 Jan 2024 at 10:00, Hamlet <hamlet@example.org> wrote:\n> Shall we meet?\n> At noon?\n";
    await sendMail(to, { subject: "Re: Lunch", text });
    expect((await lastMessage("hamlet", "Verona")).content).toBe("From: Someone <someone@example.org>\nSounds good.");
    await sendMail(to, { subject: "Re: Lunch", text: "Yes.\n\n> Shall we meet?\n> At noon?" });
    expect((await lastMessage("hamlet", "Verona")).content).toBe("From: Someone <someone@example.org>\nYes.");
    await sendMail(to.replace(".show-sender@", ".include-quotes@"), { subject: "Re: Lunch", text });
    expect((await lastMessage("hamlet", "Verona")).content).toBe(text.trimEnd());
    await sendMail(to.replace(".show-sender@", "@"), { subject: "Fwd: Lunch", text });
    const forwarded = await lastMessage("hamlet", "Verona");
    expect(forwarded.subject).toBe("Lunch");
    expect(forwarded.content).toBe(text.trimEnd());
  });

  it("refuses unknown addresses and other domains at RCPT TO with 550", async () => {
    const known = await address("hamlet", "Denmark");
    for (const to of [known.replace(/[0-9a-f]{32}/, "0".repeat(32)), `denmark.abc@${DOMAIN}`, known.replace(DOMAIN, "elsewhere.test")]) {
      await expect(sendMail(to, { subject: "x", text: "y" })).rejects.toMatchObject({ responseCode: 550 });
    }
  });

  it("refuses an address whose creator may no longer post in the channel", async () => {
    expectSuccess(
      await t.post("iago", "/api/v1/users/me/subscriptions", {
        subscriptions: JSON.stringify([{ name: "mail leavers" }]),
        invite_only: true,
        principals: JSON.stringify([(await t.user("iago")).id, (await t.user("hamlet")).id]),
      }),
    );
    const to = await address("hamlet", "mail leavers");
    expectSuccess(await t.delete("hamlet", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify(["mail leavers"]) }));
    await expect(sendMail(to, { subject: "x", text: "y" })).rejects.toMatchObject({ responseCode: 550 });
  });
});
