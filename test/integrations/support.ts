import { readFileSync } from "node:fs";
import { beforeAll, expect, it } from "vitest";
import { expectSuccess, useTestServer, type TestServer } from "../support/testApp.js";

/**
 * Integration tests read like Zulip's: post a service's payload to /api/v1/external/<name> as
 * the service would (its headers, the URL Zulip's docs give), then read, through the API, the
 * topic and message the bot posted. Payloads live in test/integrations/fixtures/<name>/.
 */
export const CHANNEL = "integrations";

export interface WebhookBot {
  id: number;
  apiKey: string;
  email: string;
}

export interface WebhookHarness {
  t: TestServer;
  bot(): WebhookBot;
  /** POST the body (an object is sent as JSON) with the bot's api_key and stream=integrations, plus `query`. */
  post(
    integration: string,
    body: unknown,
    options?: { headers?: Record<string, string>; query?: Record<string, string>; contentType?: string; noStream?: boolean },
  ): Promise<{ status: number; body: any }>;
  /** The newest message of the test channel (any topic), as raw Markdown. */
  newest(): Promise<{ id: number; topic: string; content: string } | undefined>;
  /** Messages of the channel newer than `afterId`, oldest first. */
  since(afterId: number): Promise<Array<{ id: number; topic: string; content: string }>>;
  /** POST exactly this body with exactly this query string (no api_key or stream added). */
  raw(integration: string, query: Record<string, string>, body: string, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
  /** The direct messages the bot's owner (Hamlet) got after `afterId`, oldest first, with their senders. */
  ownerDms(afterId: number): Promise<Array<{ id: number; sender: string; content: string }>>;
  /** The id of the newest direct message the bot's owner (Hamlet) has. */
  newestOwnerDmId(): Promise<number>;
  /** What the Notification Bot told the bot's owner after `afterId`, oldest first. */
  ownerNotices(afterId: number): Promise<string[]>;
}

export function useWebhookHarness(): WebhookHarness {
  const t = useTestServer();
  let bot: WebhookBot | undefined;
  beforeAll(async () => {
    expectSuccess(await t.post("iago", "/api/v1/users/me/subscriptions", { subscriptions: [{ name: CHANNEL }] }));
    const made = expectSuccess(await t.post("hamlet", "/api/v1/bots", { full_name: "Hooks", short_name: "hooks", bot_type: 2 }));
    const listed = expectSuccess(await t.get("hamlet", "/api/v1/bots")).bots.find((b: any) => b.user_id === made.user_id);
    bot = { id: made.user_id, apiKey: made.api_key, email: listed.username };
  });
  const messages = async (anchor: number | "newest", before: number, after: number) =>
    expectSuccess(
      await t.get("iago", "/api/v1/messages", {
        anchor,
        num_before: before,
        num_after: after,
        narrow: [{ operator: "channel", operand: CHANNEL }],
        apply_markdown: false,
      }),
    ).messages.map((m: any) => ({ id: m.id, topic: m.subject, content: m.content }));
  /** Hamlet's newest direct messages, newest first. */
  const ownerDms = async (): Promise<Array<{ id: number; sender_email: string; content: string }>> =>
    expectSuccess(
      await t.get("hamlet", "/api/v1/messages", {
        anchor: "newest",
        num_before: 20,
        num_after: 0,
        narrow: [{ operator: "is", operand: "dm" }],
        apply_markdown: false,
      }),
    ).messages.reverse();
  return {
    t,
    bot: () => bot ?? expect.fail("the webhook bot is made in beforeAll"),
    async post(integration, body, options = {}) {
      const query = { api_key: this.bot().apiKey, ...(options.noStream ? {} : { stream: CHANNEL }), ...options.query };
      const headers = { "Content-Type": options.contentType ?? "application/json", ...options.headers };
      return this.raw(integration, query, typeof body === "string" ? body : JSON.stringify(body), headers);
    },
    async raw(integration, query, body, headers = {}) {
      const res = await fetch(`${t.baseUrl}/api/v1/external/${integration}?${new URLSearchParams(query)}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...headers },
        body,
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: compared as text
      }
      return { status: res.status, body: parsed };
    },
    ownerDms: async (afterId) =>
      (await ownerDms())
        .filter((m) => m.id > afterId)
        .map((m) => ({ id: m.id, sender: m.sender_email, content: m.content }))
        .reverse(),
    newest: async () => (await messages("newest", 1, 0)).at(-1),
    newestOwnerDmId: async () => (await ownerDms())[0]?.id ?? 0,
    ownerNotices: async (afterId) =>
      (await ownerDms())
        .filter((m) => m.id > afterId && m.sender_email === "notification-bot@zulip.com")
        .map((m) => m.content)
        .reverse(),
    since: async (afterId) => (await messages(afterId, 0, 100)).filter((m: { id: number }) => m.id > afterId),
  };
}

/** A fixture of test/integrations/fixtures/<integration>/<name>.json as an object (or .txt as text). */
export function fixture(integration: string, name: string): unknown {
  const base = new URL(`./fixtures/${integration}/${name}`, import.meta.url);
  if (name.endsWith(".txt") || name.endsWith(".xml")) return readFileSync(base, "utf8");
  return JSON.parse(readFileSync(new URL(`./fixtures/${integration}/${name}.json`, import.meta.url), "utf8"));
}

/** One payload and what Zulip posts for it. `messages` when one payload posts several. */
export interface WebhookCase {
  name: string;
  payload: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  contentType?: string;
  topic?: string;
  content?: string;
  messages?: Array<{ topic: string; content: string }>;
  /** Nothing is posted; the answer is success, or Zulip's unsupported-event answer for this event type. */
  ignored?: true | { unsupportedEvent: string };
}

/** One `it` per case, posting the payload and comparing what the bot posted. */
export function itPosts(h: WebhookHarness, integration: string, cases: readonly WebhookCase[]): void {
  for (const c of cases) {
    it(c.name, async () => {
      const before = (await h.newest())?.id ?? 0;
      const res = await h.post(integration, c.payload, { headers: c.headers, query: c.query, contentType: c.contentType });
      const posted = await h.since(before);
      if (c.ignored) {
        expect(posted).toEqual([]);
        if (c.ignored === true) expect(res).toEqual({ status: 200, body: { result: "success", msg: "" } });
        else
          expect(res).toMatchObject({
            status: 200,
            body: { result: "error", code: "UNSUPPORTED_WEBHOOK_EVENT_TYPE", event_type: c.ignored.unsupportedEvent },
          });
        return;
      }
      expect(res).toEqual({ status: 200, body: { result: "success", msg: "" } });
      const expected = c.messages ?? [{ topic: c.topic ?? expect.fail(`${c.name}: topic`), content: c.content ?? expect.fail(`${c.name}: content`) }];
      expect(posted.map(({ topic, content }) => ({ topic, content }))).toEqual(expected);
    });
  }
}
