import { beforeAll, describe, expect, it } from "vitest";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { basicAuth } from "../support/auth.js";

const t = useTestServer();
let bot: { id: number; apiKey: string; email: string };

beforeAll(async () => {
  const body = expectSuccess(await t.post("hamlet", "/api/v1/bots", { full_name: "Alerts", short_name: "alerts", bot_type: 2 }));
  bot = {
    id: body.user_id,
    apiKey: body.api_key,
    email: expectSuccess(await t.get("hamlet", "/api/v1/bots")).bots.find((b: any) => b.full_name === "Alerts").username,
  };
});

async function hook(path: string, query: Record<string, string>, body: string, contentType = "application/json") {
  const url = `${t.baseUrl}/api/v1/external/${path}?${new URLSearchParams(query)}`;
  const res = await fetch(url, { method: "POST", headers: { "Content-Type": contentType }, body });
  return { status: res.status, body: await res.json() };
}

async function lastInTopic(topic: string) {
  const res = expectSuccess(
    await t.get("hamlet", "/api/v1/messages", {
      anchor: "newest",
      num_before: 1,
      num_after: 0,
      narrow: [
        { operator: "channel", operand: "Verona" },
        { operator: "topic", operand: topic },
      ],
      apply_markdown: false,
    }),
  );
  return res.messages.at(-1);
}

describe("incoming webhooks", () => {
  it("json: posts the payload as a code block to the channel and topic of the URL", async () => {
    const res = await hook("json", { api_key: bot.apiKey, stream: "Verona", topic: "alerts" }, JSON.stringify({ status: "down", host: "db1" }));
    expect(res).toEqual({ status: 200, body: { result: "success", msg: "" } });
    expect(await lastInTopic("alerts")).toMatchObject({ sender_id: bot.id, content: '```json\n{\n  "status": "down",\n  "host": "db1"\n}\n```' });
    const verona = expectSuccess(await t.get("iago", "/api/v1/get_stream_id", { stream: "Verona" })).stream_id;
    expect((await hook("json", { api_key: bot.apiKey, stream: String(verona) }, JSON.stringify([1, 2]))).status).toBe(200);
    expect((await lastInTopic("JSON")).content).toBe("```json\n[\n  1,\n  2\n]\n```");
  });

  it("without a channel, tells the bot's owner in a direct message", async () => {
    expect((await hook("json", { api_key: bot.apiKey }, JSON.stringify({ ping: true }))).status).toBe(200);
    const res = expectSuccess(
      await t.get("hamlet", "/api/v1/messages", {
        anchor: "newest",
        num_before: 1,
        num_after: 0,
        narrow: [{ operator: "dm", operand: [bot.id] }],
        apply_markdown: false,
      }),
    );
    expect(res.messages.at(-1)).toMatchObject({ sender_id: bot.id, content: '```json\n{\n  "ping": true\n}\n```' });
  });

  // Slack-format cases: test/integrations/slack_incoming.test.ts; the plumbing: test/integrations/plumbing.test.ts.

  it("refuses bad keys and bodies, and keeps incoming-webhook bots to sending messages", async () => {
    expect((await hook("json", { api_key: "x".repeat(32), stream: "Verona" }, "{}")).status).toBe(401);
    expect((await hook("json", { stream: "Verona" }, "{}")).status).toBe(401);
    expect((await hook("json", { api_key: bot.apiKey, stream: "Verona" }, "{not json")).status).toBe(400);
    expect((await hook("slack_incoming", { api_key: bot.apiKey, stream: "Verona" }, "[1]")).status).toBe(400);
    // Zulip: the service gets success; the bot's owner hears of the missing channel.
    expect(await hook("json", { api_key: bot.apiKey, stream: "no such channel" }, "{}")).toEqual({ status: 200, body: { result: "success", msg: "" } });
    const auth = { Authorization: basicAuth(bot.email, bot.apiKey) };
    expectError(
      await t.request("GET", null, "/api/v1/users/me", {}, { headers: auth }),
      401,
      "This API is not available to incoming webhook bots.",
      "UNAUTHORIZED",
    );
    expectSuccess(
      await t.request("POST", null, "/api/v1/messages", { type: "stream", to: "Verona", topic: "direct", content: "via the API" }, { headers: auth }),
    );
  });
});
