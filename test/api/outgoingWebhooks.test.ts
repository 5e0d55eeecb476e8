import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCaller, firstStartCredentials, freePort, type ServerProcess, useServerProcesses } from "../support/process.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";
import { basicAuth } from "../support/auth.js";
import { at } from "../support/at.js";

// A timeout with room for a loaded CI machine (at 0.5 s a normal answer sometimes came too late and
// was retried); the timeout test holds its answers well past it.
const t = useTestServer({ outgoing: { webhookTimeoutSeconds: 2, allowHosts: ["127.0.0.1"] } });

/** The bot's server: records each request and answers with what the test queued. */
interface Received {
  path: string;
  contentType: string;
  body: string;
}
const received: Received[] = [];
type Answer = { status?: number; body?: unknown; hold?: Promise<void>; delayMs?: number };
let answer: Answer = { body: { content: "pong" } };
let server: http.Server;
let baseUrl = "";

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ path: req.url ?? "", contentType: req.headers["content-type"] ?? "", body: Buffer.concat(chunks).toString("utf8") });
      const current = answer;
      // A failure here is an unhandled rejection, which fails the run.
      void (async () => {
        if (current.hold) await current.hold;
        if (current.delayMs) await new Promise((r) => setTimeout(r, current.delayMs));
        if (res.destroyed) return;
        res.writeHead(current.status ?? 200, { "Content-Type": "application/json" });
        res.end(typeof current.body === "string" ? current.body : JSON.stringify(current.body ?? ""));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function makeHookBot(shortName: string, fullName: string, url = `${baseUrl}/hook`, interfaceType = 1) {
  const body = expectSuccess(
    await t.post("hamlet", "/api/v1/bots", {
      full_name: fullName,
      short_name: shortName,
      bot_type: 3,
      payload_url: JSON.stringify(url),
      interface_type: interfaceType,
    }),
  );
  const bot = expectSuccess(await t.post("hamlet", "/api/v1/register", { fetch_event_types: ["realm_bot"] })).realm_bots.find(
    (b: any) => b.user_id === body.user_id,
  );
  return { id: body.user_id as number, email: bot.email as string, token: bot.services[0].token as string, apiKey: body.api_key as string };
}

async function dmConversation(who: string, otherId: number) {
  const res = expectSuccess(
    await t.get(who, "/api/v1/messages", {
      anchor: "newest",
      num_before: 20,
      num_after: 0,
      narrow: [{ operator: "dm", operand: [otherId] }],
      apply_markdown: false,
    }),
  );
  return res.messages as any[];
}

async function topicMessages(topic: string) {
  const res = expectSuccess(
    await t.get("hamlet", "/api/v1/messages", {
      anchor: "newest",
      num_before: 20,
      num_after: 0,
      narrow: [
        { operator: "channel", operand: "Verona" },
        { operator: "topic", operand: topic },
      ],
      apply_markdown: false,
    }),
  );
  return res.messages as any[];
}

/** Runs due jobs, including retries whose backoff has not passed yet. */
async function runJobsNow(): Promise<void> {
  await t.ctx.db.kysely.updateTable("jobs").set({ run_at: 0 }).where("kind", "=", "outgoing_webhook").where("status", "=", "pending").execute();
  await t.drainJobs();
}

describe("outgoing webhook bots", () => {
  it("posts Zulip's payload for a direct message and posts the reply in the conversation", async () => {
    const bot = await makeHookBot("echo", "Echo Bot");
    answer = { body: { content: "pong" } };
    received.length = 0;
    const messageId = expectSuccess(await t.post("hamlet", "/api/v1/messages", { type: "direct", to: [bot.id], content: "ping **now**" })).id;
    await runJobsNow();
    expect(received).toHaveLength(1);
    expect(at(received, 0).path).toBe("/hook");
    expect(at(received, 0).contentType).toBe("application/json");
    const payload = JSON.parse(at(received, 0).body);
    const hamlet = await t.user("hamlet");
    expect(payload).toMatchObject({ bot_email: bot.email, bot_full_name: "Echo Bot", data: "ping **now**", trigger: "direct_message", token: bot.token });
    expect(payload.message).toMatchObject({
      id: messageId,
      content: "ping **now**",
      content_type: "text/x-markdown",
      sender_id: hamlet.id,
      sender_email: hamlet.email,
      type: "private",
    });
    expect(payload.message.display_recipient.map((r: any) => r.id).sort()).toEqual([hamlet.id, bot.id].sort());
    const conversation = await dmConversation("hamlet", bot.id);
    expect(conversation.at(-1)).toMatchObject({ sender_id: bot.id, content: "pong" });
  });

  it("answers a mention in a channel in the same topic; response_not_required posts nothing", async () => {
    const bot = await makeHookBot("mentioned", "Mention Bot");
    answer = { body: { content: "you rang?" } };
    received.length = 0;
    expectSuccess(await t.post("othello", "/api/v1/messages", { type: "stream", to: "Verona", topic: "hooks", content: "hey @**Mention Bot** are you there" }));
    expectSuccess(await t.post("othello", "/api/v1/messages", { type: "stream", to: "Verona", topic: "hooks", content: "silently @_**Mention Bot**" }));
    await runJobsNow();
    expect(received).toHaveLength(1);
    expect(JSON.parse(at(received, 0).body)).toMatchObject({
      trigger: "mention",
      data: "hey @**Mention Bot** are you there",
      message: { type: "stream", display_recipient: "Verona", subject: "hooks" },
    });
    // The job may run before or after the second message is sent: the reply is in the topic, once.
    expect((await topicMessages("hooks")).filter((m: { sender_id: number }) => m.sender_id === bot.id)).toMatchObject([{ content: "you rang?" }]);

    answer = { body: { response_not_required: true } };
    const before = (await topicMessages("hooks")).length;
    expectSuccess(await t.post("othello", "/api/v1/messages", { type: "stream", to: "Verona", topic: "hooks", content: "@**Mention Bot** no answer needed" }));
    await runJobsNow();
    expect((await topicMessages("hooks")).length).toBe(before + 1);
  });

  it("messages from bots trigger nothing", async () => {
    const bot = await makeHookBot("quiet", "Quiet Bot");
    const other = await makeHookBot("chatty", "Chatty Bot");
    received.length = 0;
    const auth = basicAuth(other.email, other.apiKey);
    expectSuccess(
      await t.request(
        "POST",
        null,
        "/api/v1/messages",
        { type: "direct", to: JSON.stringify([bot.id]), content: "bot to bot" },
        { headers: { Authorization: auth } },
      ),
    );
    await runJobsNow();
    expect(received).toEqual([]);
  });

  it("an error answer fails at once: the bot says so and its owner is told", async () => {
    const bot = await makeHookBot("broken", "Broken Bot");
    answer = { status: 500, body: { oops: true } };
    received.length = 0;
    expectSuccess(await t.post("othello", "/api/v1/messages", { type: "direct", to: [bot.id], content: "help" }));
    await runJobsNow();
    expect(received).toHaveLength(1);
    expect((await dmConversation("othello", bot.id)).at(-1)).toMatchObject({ sender_id: bot.id, content: "Failure! Third party responded with 500" });
    const toOwner = (await dmConversation("hamlet", bot.id)).at(-1);
    expect(toOwner.sender_id).toBe(bot.id);
    expect(toOwner.content).toContain("to your bot @_**Broken Bot** triggered an outgoing webhook.");
    expect(toOwner.content).toContain("The webhook got a response with status code *500*.");
  });

  it("a bot server that times out never delays sending, is retried, then the bot is unavailable", async () => {
    const bot = await makeHookBot("slow", "Slow Bot");
    let release = () => {};
    answer = { hold: new Promise<void>((resolve) => (release = resolve)), body: { content: "too late" } };
    received.length = 0;
    // The POST is answered while the bot server still holds the request: sending does not wait.
    const jobsDone = (async () => {
      const res = await t.post("othello", "/api/v1/messages", { type: "direct", to: [bot.id], content: "anyone?" });
      expectSuccess(res);
      await runJobsNow();
    })();
    await jobsDone;
    release();
    expect(received.length).toBe(1);
    const job = await t.ctx.db.kysely.selectFrom("jobs").selectAll().where("kind", "=", "outgoing_webhook").orderBy("id", "desc").executeTakeFirstOrThrow();
    expect(job.status).toBe("pending");
    expect(job.last_error).toBe("Request timed out after 2 seconds.");
    answer = { delayMs: 4000, body: { content: "still too late" } };
    for (let i = 0; i < 3; i++) await runJobsNow();
    expect(received.length).toBe(4);
    expect((await t.ctx.db.kysely.selectFrom("jobs").select("status").where("id", "=", job.id).executeTakeFirstOrThrow()).status).toBe("done");
    expect((await dmConversation("othello", bot.id)).at(-1)).toMatchObject({ sender_id: bot.id, content: "Failure! Bot is unavailable" });
    expect((await dmConversation("hamlet", bot.id)).at(-1).content).toContain("Request timed out after 2 seconds.");
  });

  it("refuses private addresses that the operator did not allow", async () => {
    const bot = await makeHookBot("private", "Private Bot", "http://10.255.255.1/hook");
    received.length = 0;
    expectSuccess(await t.post("othello", "/api/v1/messages", { type: "direct", to: [bot.id], content: "inside?" }));
    await runJobsNow();
    expect((await dmConversation("othello", bot.id)).at(-1).content).toMatch(/^Failure! .*private or disallowed network/);
  });

  it("speaks the Slack-compatible interface", async () => {
    const bot = await makeHookBot("slacky", "Slack Bot", `${baseUrl}/slack`, 2);
    answer = { body: { text: "from slack" } };
    received.length = 0;
    expectSuccess(await t.post("othello", "/api/v1/messages", { type: "stream", to: "Verona", topic: "slack", content: "@**Slack Bot** hi" }));
    await runJobsNow();
    expect(at(received, 0).contentType).toBe("application/x-www-form-urlencoded");
    const form = new URLSearchParams(at(received, 0).body);
    expect(Object.fromEntries(form)).toMatchObject({
      token: bot.token,
      channel_name: "Verona",
      text: "@**Slack Bot** hi",
      trigger_word: "mention",
      user_name: "Othello, the Moor of Venice",
    });
    expect((await topicMessages("slack")).at(-1)).toMatchObject({ sender_id: bot.id, content: "from slack" });
  });
});

describe("embedded bots", () => {
  it("run inside the server and answer direct messages and mentions", async () => {
    expectError(
      await t.post("hamlet", "/api/v1/bots", { full_name: "Nobody", short_name: "nobody", bot_type: 4, service_name: "no-such-bot" }),
      400,
      "Invalid embedded bot name.",
    );
    const { user_id: botId } = expectSuccess(
      await t.post("hamlet", "/api/v1/bots", { full_name: "Cipher", short_name: "cipher", bot_type: 4, service_name: "encrypt" }),
    );
    const realmBot = expectSuccess(await t.post("hamlet", "/api/v1/register", { fetch_event_types: ["realm_bot"] })).realm_bots.find(
      (b: any) => b.user_id === botId,
    );
    expect(realmBot).toMatchObject({ bot_type: 4, services: [{ service_name: "encrypt", config_data: {} }] });

    expectSuccess(await t.post("othello", "/api/v1/messages", { type: "direct", to: [botId], content: "Hello, World" }));
    await runJobsNow();
    expect((await dmConversation("othello", botId)).at(-1)).toMatchObject({ sender_id: botId, content: "Encrypted/Decrypted text: Uryyb, Jbeyq" });
    expectSuccess(await t.post("othello", "/api/v1/messages", { type: "stream", to: "Verona", topic: "cipher", content: "@**Cipher** abc" }));
    await runJobsNow();
    expect((await topicMessages("cipher")).at(-1)).toMatchObject({ sender_id: botId, content: "Encrypted/Decrypted text: nop" });
  });
});

// A real server process killed with SIGKILL right after a message to the bot was acknowledged, while
// the bot's server is down: after a restart the job is still there and the bot answers.
describe("across a kill -9", () => {
  const servers = useServerProcesses();

  it("delivers the webhook after the restart", async () => {
    // A short lease: a job the killed process had claimed is taken again soon.
    const env = {
      ...(await servers.freshEnv()),
      PARLEY_OUTGOING_HTTP_ALLOW_HOSTS: "127.0.0.1",
      PARLEY_JOB_LEASE_SECONDS: "5",
      PARLEY_OUTGOING_WEBHOOK_TIMEOUT_SECONDS: "2",
    };
    let parley: ServerProcess = await servers.start(env);
    const api = apiCaller(() => parley.baseUrl, await firstStartCredentials(parley));
    const call = async (method: string, path: string, params: Record<string, string> = {}) => (await api(method, path, params)).body;
    const botPort = await freePort(); // nothing listens there yet: the bot's server is down
    const bot = await call("POST", "/bots", {
      full_name: "Durable Bot",
      short_name: "durable",
      bot_type: "3",
      payload_url: JSON.stringify(`http://127.0.0.1:${botPort}/hook`),
    });
    expect(bot.result).toBe("success");
    const sent = await call("POST", "/messages", { type: "direct", to: JSON.stringify([bot.user_id]), content: "survive this" });
    expect(sent.result).toBe("success");
    await parley.stop("SIGKILL");

    const hits: string[] = [];
    const botServer = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        hits.push(body);
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ content: "I survived too" }));
      });
    });
    await new Promise<void>((resolve) => botServer.listen(botPort, "127.0.0.1", resolve));
    servers.onCleanup(() => new Promise((resolve) => botServer.close(resolve)));
    parley = await servers.start(env);

    let reply: any;
    for (let i = 0; i < 240 && !reply; i++) {
      const res = await call("GET", "/messages", {
        anchor: "newest",
        num_before: "5",
        num_after: "0",
        narrow: JSON.stringify([{ operator: "dm", operand: [bot.user_id] }]),
        apply_markdown: "false",
      });
      reply = res.messages?.find((m: any) => m.sender_id === bot.user_id);
      if (!reply) await new Promise((r) => setTimeout(r, 250));
    }
    expect(reply?.content).toBe("I survived too");
    expect(JSON.parse(at(hits, 0)).data).toBe("survive this");
  }, 90_000);
});
