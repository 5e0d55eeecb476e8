import { describe, expect, it } from "vitest";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { clientDialectOf } from "../../src/lib/clientDialect.js";
import { sendChannelMessage } from "../support/factories.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";
import { postLoginForm } from "../support/webLogin.js";

/**
 * Zulip's own clients get Zulip's name for the :zulip: emoji's reaction_type
 * ("zulip_extra_emoji"): they decode strictly and a value they don't know breaks a whole message
 * list, event batch or /register. Other clients get our API spec's "service_extra_emoji". Both
 * names are accepted from everyone. Responses to the Zulip User-Agents are validated against the
 * reference OpenAPI's own enums (test/support/openapi.ts, dialect "zulip").
 */
const t = useTestServer({ eventHeartbeatSeconds: 1 });

const FLUTTER = "ZulipFlutter/0.0.15+15 (Android 14)";
const TERMINAL = "ZulipTerminal/0.7.0 Linux-6.1.0-x86_64-with-glibc2.36";
const OTHER = "curl/8.5.0";
const as = (userAgent: string) => ({ headers: { "User-Agent": userAgent } });

const ZULIP_FORM = { emoji_name: "zulip", emoji_code: "zulip", reaction_type: "zulip_extra_emoji" };
const SPEC_FORM = { emoji_name: "zulip", emoji_code: "zulip", reaction_type: "service_extra_emoji" };

async function sendToDenmark(content: string): Promise<number> {
  return await sendChannelMessage(t, "othello", "Denmark", "dialect", content);
}

async function register(userAgent: string, params: Record<string, unknown>) {
  const encoded = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, JSON.stringify(v)]));
  return expectSuccess(await t.post("hamlet", "/api/v1/register", encoded, as(userAgent)));
}

async function eventsOf(userAgent: string, queueId: string) {
  return expectSuccess(await t.get("hamlet", "/api/v1/events", { queue_id: queueId, last_event_id: "-1", dont_block: "true" }, as(userAgent))).events;
}

const reactionsIn = (message: { reactions: Array<{ user_id: number }> }) => message.reactions.map(({ user_id: _u, ...r }) => r);

describe("clientDialectOf", () => {
  it("recognises Zulip's clients by the User-Agents their sources send", () => {
    for (const ua of [
      "ZulipFlutter/0.0.15+15 (Android 14)",
      "ZulipFlutter/0.0.15+15 (iOS 17.4)",
      "ZulipMobile/flutter",
      "ZulipMobile/27.230 (Android 13)",
      "ZulipTerminal/0.7.0 Linux-6.1.0-x86_64-with-glibc2.36",
      "ZulipElectron/5.12.0 Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Zulip/5.12.0 Chrome/126.0 Electron/31.0 Safari/537.36",
      "ZulipDesktop/0.5.2 (Mac)",
      "ZulipPython/0.9.0 (Debian GNU/Linux; 12)",
      "ZulipHelloworldBot (Linux; 6.1)",
      "node-fetch/1.0 (+https://github.com/bitinn/node-fetch)",
    ]) {
      expect([ua, clientDialectOf(ua)]).toEqual([ua, "zulip"]);
    }
  });

  it("answers every other client, and a missing User-Agent, in the spec's names; the web session in Zulip's", () => {
    for (const ua of [
      undefined,
      "",
      "curl/8.5.0",
      "python-requests/2.31.0",
      "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0",
      "MyZulipBot/1.0",
      "ParleyTests/1.0",
      "node",
    ]) {
      expect([ua, clientDialectOf(ua)]).toEqual([ua, "spec"]);
    }
    expect(clientDialectOf("Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0", true)).toBe("zulip");
  });
});

describe("the :zulip: emoji's reaction_type", () => {
  it("is accepted under either name from either kind of client", async () => {
    const id = await sendToDenmark("react in any dialect");
    expectSuccess(await t.post("hamlet", `/api/v1/messages/${id}/reactions`, SPEC_FORM, as(FLUTTER)));
    expectSuccess(await t.delete("hamlet", `/api/v1/messages/${id}/reactions`, ZULIP_FORM, as(OTHER)));
    expectSuccess(await t.post("hamlet", `/api/v1/messages/${id}/reactions`, ZULIP_FORM, as(OTHER)));
    expectSuccess(await t.delete("hamlet", `/api/v1/messages/${id}/reactions`, SPEC_FORM, as(FLUTTER)));
    expect((await t.get("hamlet", `/api/v1/messages/${id}`)).body.message.reactions).toEqual([]);
  });

  it("comes in Zulip's name in message lists and single messages for Zulip's clients, in the spec's for others, also after an edit", async () => {
    const id = await sendToDenmark("a message with a :zulip: reaction");
    expectSuccess(await t.post("hamlet", `/api/v1/messages/${id}/reactions`, { emoji_name: "zulip" }));
    expectSuccess(await t.post("othello", `/api/v1/messages/${id}/reactions`, { emoji_name: "smile" }));
    expectSuccess(await t.patch("othello", `/api/v1/messages/${id}`, { content: "edited, still with the reaction" }));
    const narrow = JSON.stringify([{ operator: "id", operand: id }]);
    for (const [ua, zulipType] of [
      [FLUTTER, "zulip_extra_emoji"],
      [TERMINAL, "zulip_extra_emoji"],
      [OTHER, "service_extra_emoji"],
    ] as const) {
      const list = expectSuccess(await t.get("hamlet", "/api/v1/messages", { anchor: String(id), num_before: "0", num_after: "0", narrow }, as(ua))).messages;
      const single = expectSuccess(await t.get("hamlet", `/api/v1/messages/${id}`, {}, as(ua))).message;
      for (const message of [list[0], single]) {
        expect(reactionsIn(message)).toEqual([
          { emoji_name: "zulip", emoji_code: "zulip", reaction_type: zulipType },
          { emoji_name: "smile", emoji_code: "1f642", reaction_type: "unicode_emoji" },
        ]);
      }
    }
  });

  it("comes in each queue's dialect in reaction events, decided at /register", async () => {
    const zulip = await register(FLUTTER, { event_types: ["reaction"] });
    const other = await register(OTHER, { event_types: ["reaction"] });
    const id = await sendToDenmark("react to me");
    expectSuccess(await t.post("iago", `/api/v1/messages/${id}/reactions`, { emoji_name: "zulip" }));
    expectSuccess(await t.delete("iago", `/api/v1/messages/${id}/reactions`, SPEC_FORM));
    const pick = (events: any[]) => events.map((e) => [e.op, e.reaction_type, e.emoji_code]);
    expect(pick(await eventsOf(FLUTTER, zulip.queue_id))).toEqual([
      ["add", "zulip_extra_emoji", "zulip"],
      ["remove", "zulip_extra_emoji", "zulip"],
    ]);
    expect(pick(await eventsOf(OTHER, other.queue_id))).toEqual([
      ["add", "service_extra_emoji", "zulip"],
      ["remove", "service_extra_emoji", "zulip"],
    ]);
  });

  it("comes in Zulip's name in user statuses for Zulip's clients: /register, user_status events and GET status", async () => {
    const zulip = await register(FLUTTER, { event_types: ["user_status"] });
    const other = await register(OTHER, { event_types: ["user_status"] });
    expectSuccess(
      await t.post("iago", "/api/v1/users/me/status", {
        status_text: "building",
        emoji_name: "zulip",
        reaction_type: "zulip_extra_emoji",
        emoji_code: "zulip",
      }),
    );
    const iago = (await t.user("iago")).id;
    const [zulipEvent] = await eventsOf(FLUTTER, zulip.queue_id);
    const [otherEvent] = await eventsOf(OTHER, other.queue_id);
    expect(zulipEvent).toMatchObject({ type: "user_status", user_id: iago, emoji_name: "zulip", reaction_type: "zulip_extra_emoji" });
    expect(otherEvent).toMatchObject({ type: "user_status", user_id: iago, emoji_name: "zulip", reaction_type: "service_extra_emoji" });

    const state = await register(FLUTTER, { fetch_event_types: ["user_status"], event_types: ["message"] });
    expect(state.user_status[String(iago)]).toMatchObject({ status_text: "building", reaction_type: "zulip_extra_emoji" });
    const otherState = await register(OTHER, { fetch_event_types: ["user_status"], event_types: ["message"] });
    expect(otherState.user_status[String(iago)]).toMatchObject({ reaction_type: "service_extra_emoji" });

    expect(expectSuccess(await t.get("hamlet", `/api/v1/users/${iago}/status`, {}, as(FLUTTER))).status).toMatchObject({ reaction_type: "zulip_extra_emoji" });
    expect(expectSuccess(await t.get("hamlet", `/api/v1/users/${iago}/status`, {}, as(OTHER))).status).toMatchObject({ reaction_type: "service_extra_emoji" });
    expectSuccess(await t.post("iago", "/api/v1/users/me/status", { status_text: "", emoji_name: "" }));
  });

  it("is never rewritten inside message content", async () => {
    const content = 'quoting JSON: {"reaction_type":"service_extra_emoji"}';
    const id = await sendToDenmark(content);
    const message = expectSuccess(await t.get("hamlet", `/api/v1/messages/${id}`, { apply_markdown: "false" }, as(FLUTTER))).message;
    expect(message.content).toBe(content);
  });
});

describe("Parley's web app (/json with a session)", () => {
  it("gets Zulip's name, whatever its browser's User-Agent", async () => {
    const id = await sendToDenmark("react for the web app");
    expectSuccess(await t.post("hamlet", `/api/v1/messages/${id}/reactions`, { emoji_name: "zulip" }));
    const login = await postLoginForm(t.baseUrl, "hamlet@zulip.com", DEV_PASSWORD);
    const session = /sessionid=([^;]+)/.exec(login.headers.getSetCookie().join("\n"))![1];
    const res = await fetch(`${t.baseUrl}/json/messages/${id}`, {
      headers: { Cookie: `sessionid=${session}`, "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0" },
    });
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body.message.reactions.map((r: any) => r.reaction_type)).toEqual(["zulip_extra_emoji"]);
  });
});
