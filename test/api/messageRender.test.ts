import { describe, expect, it } from "vitest";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

const t = useTestServer();

describe("POST /api/v1/messages/render", () => {
  it("renders Markdown as the requesting user would send it, without sending anything", async () => {
    const before = await t.ctx.db.kysely.selectFrom("messages").select("id").orderBy("id", "desc").executeTakeFirstOrThrow();
    expect(expectSuccess(await t.post("hamlet", "/api/v1/messages/render", { content: "**foo**" }))).toEqual({
      result: "success",
      msg: "",
      rendered: "<p><strong>foo</strong></p>",
    });
    const mention = expectSuccess(await t.post("hamlet", "/api/v1/messages/render", { content: "hi @**Iago**" }, { multipart: true }));
    expect(mention.rendered).toBe('<p>hi <span class="user-mention" data-user-id="11">@Iago</span></p>');
    const after = await t.ctx.db.kysely.selectFrom("messages").select("id").orderBy("id", "desc").executeTakeFirstOrThrow();
    expect(after.id).toBe(before.id);
  });

  it("links only channels the user may see", async () => {
    expect(expectSuccess(await t.post("hamlet", "/api/v1/messages/render", { content: "#**core team**" })).rendered).toContain('class="stream"');
    expect(expectSuccess(await t.post("othello", "/api/v1/messages/render", { content: "#**core team**" })).rendered).not.toContain('class="stream"');
  });

  it("renders empty content as empty HTML and rejects bad requests", async () => {
    expect(expectSuccess(await t.post("hamlet", "/api/v1/messages/render", { content: "" })).rendered).toBe("");
    expectError(await t.post("hamlet", "/api/v1/messages/render", {}), 400, "Missing 'content' argument", "REQUEST_VARIABLE_MISSING");
    expectError(await t.post("hamlet", "/api/v1/messages/render", { content: "a\u0000" }), 400, "content contains NULL (0x00) characters.");
    expectError(
      await t.post(null, "/api/v1/messages/render", { content: "x" }),
      401,
      "Not logged in: API authentication or user session required",
      "UNAUTHORIZED",
    );
  });
});
