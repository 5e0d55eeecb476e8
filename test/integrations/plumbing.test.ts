import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basicAuth } from "../support/auth.js";
import { expectSuccess } from "../support/testApp.js";
import { CHANNEL, fixture, useWebhookHarness } from "./support.js";

/**
 * The shared webhook plumbing (src/http/incomingWebhooks.ts, src/actions/incomingWebhooks.ts,
 * src/integrations/{payload,errors,eventFilter}.ts), through HTTP, as Zulip's webhook_view,
 * check_send_webhook_message and validate_extract_webhook_http_header behave, shown with real
 * integrations: json (any payload), GitHub (an event header, event types the URL can filter,
 * ignored and unsupported events) and Jira (an anomalous payload).
 */

const h = useWebhookHarness();
const t = h.t;

const raw = (integration: string, query: Record<string, string>, body: string, headers: Record<string, string> = {}) =>
  h.raw(integration, query, body, headers);
const hamletDms = (afterId: number) => h.ownerDms(afterId);
const newestDmId = () => h.newestOwnerDmId();

async function newestChannelId(): Promise<number> {
  return (await h.newest())?.id ?? 0;
}

/** A GitHub payload of test/integrations/fixtures/github/, as GitHub posts it. */
const github = (fixtureName: string) => JSON.stringify(fixture("github", fixtureName));

describe("authentication", () => {
  it("an unknown integration is a 404", async () => {
    const res = await raw("no_such_integration", { api_key: h.bot().apiKey, stream: CHANNEL }, "{}");
    expect(res.status).toBe(404);
  });

  it("takes api_key from the query string or HTTP Basic (email:api_key)", async () => {
    const before = await newestChannelId();
    expect(await raw("json", { api_key: h.bot().apiKey, stream: CHANNEL, topic: "by key" }, '{"a":1}')).toEqual({
      status: 200,
      body: { result: "success", msg: "" },
    });
    expect(await raw("json", { stream: CHANNEL, topic: "by basic" }, '{"b":2}', { Authorization: basicAuth(h.bot().email, h.bot().apiKey) })).toEqual({
      status: 200,
      body: { result: "success", msg: "" },
    });
    const posted = await h.since(before);
    expect(posted.map((m) => m.topic)).toEqual(["by key", "by basic"]);
  });

  it("refuses a wrong or malformed key with a 401 and posts nothing", async () => {
    const before = await newestChannelId();
    expect(await raw("json", { api_key: "x".repeat(32), stream: CHANNEL }, "{}")).toMatchObject({
      status: 401,
      body: { result: "error", msg: "Invalid API key", code: "INVALID_API_KEY" },
    });
    expect(await raw("json", { api_key: "short", stream: CHANNEL }, "{}")).toMatchObject({
      status: 401,
      body: { result: "error", msg: "Malformed API key", code: "INVALID_API_KEY" },
    });
    expect((await raw("json", { stream: CHANNEL }, "{}", { Authorization: basicAuth(h.bot().email, "y".repeat(32)) })).status).toBe(401);
    expect((await raw("json", { stream: CHANNEL }, "{}")).status).toBe(401);
    expect(await h.since(before)).toEqual([]);
  });

  it("lets a generic bot and a normal user post, as Zulip's allow_webhook_access", async () => {
    const generic = expectSuccess(await t.post("hamlet", "/api/v1/bots", { full_name: "Generic", short_name: "generic-hooks", bot_type: 1 }));
    const hamlet = await t.user("hamlet");
    const before = await newestChannelId();
    expect((await raw("json", { api_key: generic.api_key, stream: CHANNEL, topic: "generic" }, "{}")).status).toBe(200);
    expect((await raw("json", { api_key: hamlet.api_key, stream: CHANNEL, topic: "person" }, "{}")).status).toBe(200);
    const posted = await h.since(before);
    expect(posted.map((m) => m.topic)).toEqual(["generic", "person"]);
  });

  it("refuses a deactivated bot, and a bot whose owner was deactivated", async () => {
    const own = expectSuccess(await t.post("hamlet", "/api/v1/bots", { full_name: "Gone", short_name: "gone-hooks", bot_type: 2 }));
    expectSuccess(await t.delete("hamlet", `/api/v1/bots/${own.user_id}`));
    expect(await raw("json", { api_key: own.api_key, stream: CHANNEL }, "{}")).toMatchObject({
      status: 401,
      body: { result: "error", msg: "Account is deactivated", code: "USER_DEACTIVATED" },
    });
    const cordelias = expectSuccess(await t.post("cordelia", "/api/v1/bots", { full_name: "Orphan", short_name: "orphan-hooks", bot_type: 2 }));
    expect((await raw("json", { api_key: cordelias.api_key, stream: CHANNEL }, "{}")).status).toBe(200);
    expectSuccess(await t.delete("iago", `/api/v1/users/${(await t.user("cordelia")).id}`));
    expect(await raw("json", { api_key: cordelias.api_key, stream: CHANNEL }, "{}")).toMatchObject({ status: 401, body: { code: "USER_DEACTIVATED" } });
  });
});

describe("HEAD requests", () => {
  it("Trello and Intercom check the URL with HEAD before sending: 200 without credentials; others take POST only", async () => {
    const head = async (name: string) => (await fetch(`${t.baseUrl}/api/v1/external/${name}`, { method: "HEAD" })).status;
    expect(await head("trello")).toBe(200);
    expect(await head("intercom")).toBe(200);
    expect(await head("github")).toBe(405);
    expect(await head("no_such_integration")).toBe(404);
  });
});

describe("where messages go", () => {
  it("names the channel by name or by id, and the URL's topic replaces the integration's", async () => {
    const id = expectSuccess(await t.get("iago", "/api/v1/get_stream_id", { stream: CHANNEL })).stream_id;
    const before = await newestChannelId();
    expect((await raw("json", { api_key: h.bot().apiKey, stream: CHANNEL }, '"by name"')).status).toBe(200);
    expect((await raw("json", { api_key: h.bot().apiKey, stream: String(id) }, '"by id"')).status).toBe(200);
    expect((await raw("json", { api_key: h.bot().apiKey, stream: CHANNEL, topic: "mine" }, '"own topic"')).status).toBe(200);
    expect((await h.since(before)).map(({ topic, content }) => ({ topic, content }))).toEqual([
      { topic: "JSON", content: '```json\n"by name"\n```' },
      { topic: "JSON", content: '```json\n"by id"\n```' },
      { topic: "mine", content: '```json\n"own topic"\n```' },
    ]);
  });

  it("without a channel, sends the messages to the bot's owner", async () => {
    const before = await newestDmId();
    expect((await raw("json", { api_key: h.bot().apiKey }, '{"dm":true}')).status).toBe(200);
    expect(await hamletDms(before)).toEqual([{ id: expect.any(Number), sender: h.bot().email, content: '```json\n{\n  "dm": true\n}\n```' }]);
  });

  it("a channel that does not exist: success, and the owner hears of it at most once a minute", async () => {
    const before = await newestDmId();
    expect(await raw("json", { api_key: h.bot().apiKey, stream: "nowhere at all" }, "{}")).toEqual({ status: 200, body: { result: "success", msg: "" } });
    expect(await raw("json", { api_key: h.bot().apiKey, stream: "nowhere at all" }, "{}")).toEqual({ status: 200, body: { result: "success", msg: "" } });
    expect(await hamletDms(before)).toEqual([
      {
        id: expect.any(Number),
        sender: "notification-bot@zulip.com",
        content: `Your bot \`${h.bot().email}\` tried to send a message to channel #**nowhere at all**, but that channel does not exist. Click [here](#channels/new) to create it.`,
      },
    ]);
  });

  it("a channel id that does not exist: the owner is told of the id", async () => {
    const bot = expectSuccess(await t.post("hamlet", "/api/v1/bots", { full_name: "Id hooks", short_name: "id-hooks", bot_type: 2 }));
    const email = expectSuccess(await t.get("hamlet", "/api/v1/bots")).bots.find((b: any) => b.user_id === bot.user_id).username;
    const before = await newestDmId();
    expect((await raw("json", { api_key: bot.api_key, stream: "987654" }, "{}")).status).toBe(200);
    expect((await hamletDms(before)).map((m) => m.content)).toEqual([
      `Your bot \`${email}\` tried to send a message to channel ID 987654, but there is no channel with that ID.`,
    ]);
  });
});

describe("event filters", () => {
  // Five GitHub events and the event types Zulip gives them (its complete_event_type).
  const events: Array<[string, string, string]> = [
    ["push", "push__1_commit", "push_commits"],
    ["pull_request", "pull_request__opened", "opened_pull_request"],
    ["pull_request_review", "pull_request_review", "pull_request_review"],
    ["issues", "issues__opened", "issues"],
    ["issue_comment", "issue_comment", "issue_comment"],
  ];
  /** Posts the five with the URL's filters; the event types of those that were posted. */
  async function posted(query: Record<string, string>): Promise<string[]> {
    const types: string[] = [];
    for (const [header, name, type] of events) {
      const before = await newestChannelId();
      const res = await raw("github", { api_key: h.bot().apiKey, stream: CHANNEL, ...query }, github(name), { "X-GitHub-Event": header });
      expect(res).toEqual({ status: 200, body: { result: "success", msg: "" } });
      if ((await h.since(before)).length > 0) types.push(type);
    }
    return types;
  }
  const cases: Array<[string, Record<string, string>, string[]]> = [
    ["no filter posts every event", {}, ["push_commits", "opened_pull_request", "pull_request_review", "issues", "issue_comment"]],
    ["only_events with *", { only_events: '["*pull_request*"]' }, ["opened_pull_request", "pull_request_review"]],
    ["exclude_events with *", { exclude_events: '["issue*"]' }, ["push_commits", "opened_pull_request", "pull_request_review"]],
    ["? matches one character", { only_events: '["issue?"]' }, ["issues"]],
    ["[ab] matches one of a set", { only_events: '["[op]ush_commits", "issue[s_]"]' }, ["push_commits", "issues"]],
    ["[!a] matches one not in a set", { only_events: '["[!p]*"]' }, ["opened_pull_request", "issues", "issue_comment"]],
    [
      "both: only, then exclude",
      { only_events: '["*"]', exclude_events: '["opened_pull_request", "push_commits"]' },
      ["pull_request_review", "issues", "issue_comment"],
    ],
    ["matching is case-sensitive and whole", { only_events: '["PUSH_COMMITS", "push"]' }, []],
  ];
  for (const [name, query, expected] of cases) {
    it(name, async () => {
      expect(await posted(query)).toEqual(expected);
    });
  }

  it("a filter that is not a JSON list of strings is a 400 and posts nothing", async () => {
    const before = await newestChannelId();
    const queries: Array<Record<string, string>> = [
      { only_events: "[push" },
      { exclude_events: "push" },
      { only_events: '{"a":1}' },
      { exclude_events: "[1]" },
    ];
    for (const query of queries) {
      const res = await raw("github", { api_key: h.bot().apiKey, stream: CHANNEL, ...query }, github("push__1_commit"), { "X-GitHub-Event": "push" });
      expect(res).toMatchObject({ status: 400, body: { result: "error", code: "BAD_REQUEST" } });
    }
    expect(await h.since(before)).toEqual([]);
  });
});

describe("errors", () => {
  it("a body that is not JSON: 400 Malformed JSON, and the owner is told", async () => {
    const bot = expectSuccess(await t.post("hamlet", "/api/v1/bots", { full_name: "Json hooks", short_name: "json-hooks", bot_type: 2 }));
    const before = await newestDmId();
    const channelBefore = await newestChannelId();
    expect(await raw("json", { api_key: bot.api_key, stream: CHANNEL }, "{not json")).toEqual({
      status: 400,
      body: { result: "error", msg: "Malformed JSON", code: "BAD_REQUEST" },
    });
    expect(await hamletDms(before)).toEqual([
      {
        id: expect.any(Number),
        sender: "notification-bot@zulip.com",
        content:
          "Hi there! It looks like you tried to set up the Zulip JSON integration,\nbut didn't correctly configure the webhook to send data in the JSON format\nthat this integration expects!",
      },
    ]);
    expect(await h.since(channelBefore)).toEqual([]);
  });

  it("a missing event header: 400 MISSING_HTTP_EVENT_HEADER, and the owner is told", async () => {
    const bot = expectSuccess(await t.post("hamlet", "/api/v1/bots", { full_name: "Header hooks", short_name: "header-hooks", bot_type: 2 }));
    const before = await newestDmId();
    expect(await raw("github", { api_key: bot.api_key, stream: CHANNEL }, github("push__1_commit"))).toEqual({
      status: 400,
      body: { result: "error", msg: "Missing the HTTP event header 'X-GitHub-Event'", code: "MISSING_HTTP_EVENT_HEADER", header: "X-GitHub-Event" },
    });
    const notes = await hamletDms(before);
    expect(notes).toHaveLength(1);
    expect(notes[0]?.sender).toBe("notification-bot@zulip.com");
    expect(notes[0]?.content).toMatch(
      /^Hi there! {2}Your bot Header hooks just sent an HTTP request to \/api\/v1\/external\/github that\nis missing the HTTP X-GitHub-Event header\. {2}Because this header is how\nGitHub indicates the event type, this usually indicates a configuration\nissue, where you either entered the URL for a different integration, or are running\nan older version of the third-party service that doesn't provide that header\.\nContact .+ if you need help debugging!$/,
    );
  });

  it("an unsupported event: 200 with UNSUPPORTED_WEBHOOK_EVENT_TYPE, nothing posted", async () => {
    const before = await newestChannelId();
    expect(await raw("github", { api_key: h.bot().apiKey, stream: CHANNEL }, "{}", { "X-GitHub-Event": "weird" })).toEqual({
      status: 200,
      body: {
        result: "error",
        msg: "The 'weird:???' event isn't currently supported by the GitHub webhook; ignoring",
        code: "UNSUPPORTED_WEBHOOK_EVENT_TYPE",
        webhook_name: "GitHub",
        event_type: "weird:???",
      },
    });
    expect(await h.since(before)).toEqual([]);
  });

  it("an event the integration ignores: success, nothing posted", async () => {
    const before = await newestChannelId();
    expect(await raw("github", { api_key: h.bot().apiKey, stream: CHANNEL }, github("check_run__in_progress"), { "X-GitHub-Event": "check_run" })).toEqual({
      status: 200,
      body: { result: "success", msg: "" },
    });
    expect(await h.since(before)).toEqual([]);
  });

  it("an anomalous payload, or a required field missing: 400, nothing posted", async () => {
    const before = await newestChannelId();
    expect(await raw("jira", { api_key: h.bot().apiKey, stream: CHANNEL }, "{}")).toMatchObject({
      status: 400,
      body: { result: "error", msg: "Unable to parse request: Did Jira generate this event?", code: "ANOMALOUS_WEBHOOK_PAYLOAD" },
    });
    const { ref: _ref, ...withoutRef } = fixture("github", "push__1_commit") as Record<string, unknown>;
    expect(await raw("github", { api_key: h.bot().apiKey, stream: CHANNEL }, JSON.stringify(withoutRef), { "X-GitHub-Event": "push" })).toMatchObject({
      status: 400,
      body: { result: "error", msg: "payload['ref'] is missing" },
    });
    expect(await h.since(before)).toEqual([]);
  });

  it("a body over the limit: 413, nothing posted", async () => {
    const before = await newestChannelId();
    const huge = JSON.stringify({ blob: "x".repeat(6 * 1024 * 1024) });
    const res = await raw("json", { api_key: h.bot().apiKey, stream: CHANNEL }, huge);
    expect(res.status).toBe(413);
    expect(await h.since(before)).toEqual([]);
  });
});

describe("what a payload can do", () => {
  let server: Server;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits++;
      res.setHeader("Content-Type", "text/html");
      res.end('<html><head><meta property="og:title" content="Fetched"></head><body>fetched</body></html>');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("HTML and scripts in a payload are rendered escaped", async () => {
    const before = await newestChannelId();
    const text = '<script>alert("x")</script> <img src=x onerror=alert(1)> <b>bold</b>';
    expect((await raw("slack_incoming", { api_key: h.bot().apiKey, stream: CHANNEL, topic: "html" }, JSON.stringify({ text }))).status).toBe(200);
    const [message] = await h.since(before);
    const rendered = expectSuccess(await t.get("iago", `/api/v1/messages/${message?.id}`, { apply_markdown: true })).message.content as string;
    expect(rendered).not.toMatch(/<script|<img|<b>/);
    expect(rendered).toContain("&lt;script&gt;");
  });

  it("a bot's message gets no URL previews: the server fetches nothing", async () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/page`;
    await t.withRealmSettings({ inline_url_embed_preview: true }, async () => {
      const before = await newestChannelId();
      expect((await raw("slack_incoming", { api_key: h.bot().apiKey, stream: CHANNEL, topic: "links" }, JSON.stringify({ text: `see ${url}` }))).status).toBe(
        200,
      );
      expect((await h.since(before)).map((m) => m.content)).toEqual([`see ${url}`]);
      const jobs = await t.ctx.db.kysely.selectFrom("jobs").select("kind").where("kind", "=", "url_preview").execute();
      expect(jobs).toEqual([]);
      await t.drainJobs();
    });
    expect(hits).toBe(0);
  });
});
