import { describe, expect, it } from "vitest";
import { expectSuccess, useTestServer } from "../support/testApp.js";

const t = useTestServer();

async function sendAndFetch(content: string, sender = "hamlet", reader = "othello") {
  const sent = expectSuccess(await t.post(sender, "/api/v1/messages", { type: "stream", to: "Verona", topic: "render", content }));
  const fetched = expectSuccess(await t.get(reader, `/api/v1/messages/${sent.id}`));
  return { id: sent.id as number, message: fetched.message };
}

describe("messages are rendered with Zulip's Markdown at send time", () => {
  it("stores the source and the rendered HTML", async () => {
    const { message } = await sendAndFetch("**bold** and `code`\n\n```python\nprint(1)\n```");
    expect(message.content).toContain("<strong>bold</strong>");
    expect(message.content).toContain("<code>code</code>");
    expect(message.content).toContain('<div class="codehilite" data-code-language="Python">');
    const raw = expectSuccess(await t.get("othello", `/api/v1/messages/${(await sendAndFetch("*x*")).id}`, { apply_markdown: false }));
    expect(raw.message.content).toBe("*x*");
  });

  it("renders mentions and sets the mentioned flag of the mentioned user only", async () => {
    const { id, message } = await sendAndFetch("hi @**Othello, the Moor of Venice** and @_**Iago**");
    expect(message.content).toContain('<span class="user-mention" data-user-id="12">@Othello, the Moor of Venice</span>');
    expect(message.content).toContain('<span class="user-mention silent" data-user-id="11">Iago</span>');
    const rows = await t.ctx.db.kysely.selectFrom("user_messages").select(["user_id", "flags"]).where("message_id", "=", id).execute();
    const mentioned = rows.filter((r) => (r.flags & 8) !== 0).map((r) => r.user_id);
    expect(mentioned).toEqual([12]);
  });

  it("links a channel the sender can see, but never reveals a private channel the sender cannot see", async () => {
    // othello is not in the private "core team"; hamlet, who reads it, is.
    const { message } = await sendAndFetch("see #**Denmark** and #**core team**", "othello", "hamlet");
    expect(message.content).toContain('class="stream" data-stream-id="2"');
    expect(message.content).not.toContain('data-stream-id="6"');
  });

  it("escapes HTML and refuses unsafe links", async () => {
    const { message } = await sendAndFetch("<script>alert(1)</script> [x](javascript:alert(1))");
    expect(message.content).not.toContain("<script>");
    expect(message.content).not.toContain('href="javascript:');
  });

  it("renders emoji as Zulip does", async () => {
    const { message } = await sendAndFetch(":smile:");
    expect(message.content).toMatch(/<span aria-label="smile" class="emoji emoji-[0-9a-f-]+" role="img" title="smile">:smile:<\/span>/);
  });
});
