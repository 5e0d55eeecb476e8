import { describe, expect, it } from "vitest";
import { sendChannelMessage } from "../support/factories.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

/** POST /messages/{id}/report: the Notification Bot posts reports to the moderation-request channel. */
const t = useTestServer();

const report = (who: string, id: number, params: Record<string, string>) => t.post(who, `/api/v1/messages/${id}/report`, params);

async function sendToDenmark(who: string, content: string): Promise<number> {
  return await sendChannelMessage(t, who, "Denmark", "report me", content);
}

async function moderationMessages() {
  const narrow = JSON.stringify([
    { operator: "channel", operand: "core team" },
    { operator: "topic", operand: "King Hamlet moderation" },
  ]);
  return expectSuccess(await t.get("iago", "/api/v1/messages", { anchor: "newest", num_before: "10", num_after: "0", narrow, apply_markdown: "false" }))
    .messages;
}

describe("POST /messages/{message_id}/report", () => {
  it("is refused while the organization has no moderation-request channel", async () => {
    const id = await sendToDenmark("hamlet", "before moderation");
    expectError(await report("othello", id, { report_type: "spam" }), 400, "Message reporting is not enabled in this organization.");
  });

  it("posts the report with the message quoted to the moderation-request channel, as the Notification Bot", async () => {
    const coreTeam = expectSuccess(await t.get("iago", "/api/v1/get_stream_id", { stream: "core team" })).stream_id;
    expectSuccess(await t.patch("iago", "/api/v1/realm", { moderation_request_channel_id: String(coreTeam) }));
    const id = await sendToDenmark("hamlet", "Buy cheap swords!");
    const hamlet = await t.user("hamlet");
    const othello = await t.user("othello");
    expectSuccess(await report("othello", id, { report_type: "spam", description: "Third time today." }));
    const [notice] = (await moderationMessages()).slice(-1);
    expect(notice.sender_email).toBe("notification-bot@zulip.com");
    expect(notice.content).toMatch(
      new RegExp(
        `^@_\\*\\*${othello.full_name}\\|${othello.id}\\*\\* reported a message sent by @_\\*\\*King Hamlet\\|${hamlet.id}\\*\\* at <time:\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\+00:00>\\.\n`,
      ),
    );
    expect(notice.content).toContain(
      `\n\`\`\`quote\n**Spam**. Third time today.\n\`\`\`\n\n\`\`\` spoiler Original message at #**Denmark>report me@${id}**\nBuy cheap swords!\n\`\`\`\n`,
    );
  });

  it("links direct messages by URL and names whom the reporter's own message went to", async () => {
    const hamlet = await t.user("hamlet");
    const othello = await t.user("othello");
    const id = expectSuccess(await t.post("hamlet", "/api/v1/messages", { type: "private", to: JSON.stringify([othello.id]), content: "```\ncode\n```" })).id;
    expectSuccess(await report("hamlet", id, { report_type: "other", description: "I regret this." }));
    const [notice] = (await moderationMessages()).slice(-1);
    expect(notice.content).toContain(`reported a message sent by @_**King Hamlet|${hamlet.id}** to @_**${othello.full_name}|${othello.id}** at <time:`);
    const low = Math.min(hamlet.id, othello.id);
    const high = Math.max(hamlet.id, othello.id);
    // The quoted message holds a ``` fence, so the spoiler uses a longer one.
    expect(notice.content).toContain(
      `**Other reason**. I regret this.\n\`\`\`\n\n\`\`\`\` spoiler [Original message](${t.ctx.config.externalUrl}/#narrow/dm/${low},${high}-dm/near/${id})\n\`\`\`\ncode\n\`\`\`\n\`\`\`\`\n`,
    );
  });

  it("validates the report and the reporter's access to the message, and posts nothing on error", async () => {
    const before = (await moderationMessages()).length;
    const id = await sendToDenmark("hamlet", "borderline");
    expectError(await report("othello", id, { report_type: "boring" }), 400, "Invalid report_type");
    expectError(await report("othello", id, {}), 400, "Missing 'report_type' argument", "REQUEST_VARIABLE_MISSING");
    expectError(await report("othello", id, { report_type: "other" }), 400, "An explanation is required.");
    expectError(await report("othello", id, { report_type: "norms", description: "x".repeat(1001) }), 400, "description is too long (limit: 1000 characters)");
    const secret = await sendChannelMessage(t, "iago", "core team", "secret", "core only");
    expectError(await report("othello", secret, { report_type: "spam" }), 400, "Invalid message(s)");
    expectError(await report("othello", 99_999_999, { report_type: "spam" }), 400, "Invalid message(s)");
    expect(await moderationMessages()).toHaveLength(before);
  });
});
