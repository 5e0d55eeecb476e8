import { REGISTER_PARAMS } from "../../src/contract/register.js";
import { addRealmEmoji, makeChannel, queuedEvents, registerQueue, sendChannelMessage, sendDirectMessage } from "./factories.js";
import { seedChannels, seedUsers } from "./seed.js";
import { type ApiResponse, expectSuccess, type TestServer } from "./testApp.js";

/**
 * What the web app of hamlet receives while others and he act through the API: his POST /register
 * answer (with the web app's own parameters) and, step by step, the events of his queue. Recorded
 * into test/fixtures/web-events.json (test/events/webEventsFixture.test.ts checks the file against a
 * fresh recording and rewrites it with PARLEY_RECORD_FIXTURES=1); test/web/eventReducer.test.ts
 * feeds it to the web app's reducer.
 */
export interface WebEventRecording {
  user_id: number;
  register: Record<string, unknown>;
  /** The ids of the messages the steps send, by name. */
  messages: Record<string, number>;
  steps: Array<{ step: string; events: any[] }>;
}

export const WEB_EVENTS_USER = seedUsers.hamlet;

export async function recordWebEvents(t: TestServer): Promise<WebEventRecording> {
  const me = "hamlet";
  const register = await registerQueue(t, me, REGISTER_PARAMS);
  const queueId: string = register.queue_id;
  let lastEventId: number = register.last_event_id;
  const steps: WebEventRecording["steps"] = [];
  const messages: Record<string, number> = {};
  const step = async (name: string, act: () => Promise<unknown>) => {
    const result = await act();
    if (typeof result === "object" && result !== null && "status" in result) expectSuccess(result as ApiResponse);
    const events = await queuedEvents(t, me, queueId, lastEventId);
    lastEventId = Math.max(lastEventId, ...events.map((e) => e.id));
    steps.push({ step: name, events });
  };
  const denmark = seedChannels.denmark.id;

  await step("othello mentions hamlet in Denmark", async () => {
    messages.mention = await sendChannelMessage(t, "othello", "Denmark", "lunch", "@**King Hamlet** lunch at noon?");
  });
  await step("othello sends a second message to the topic", async () => {
    messages.plain = await sendChannelMessage(t, "othello", "Denmark", "lunch", "or one o'clock");
  });
  await step("othello writes to hamlet directly", async () => {
    messages.direct = await sendDirectMessage(t, "othello", ["hamlet"], "A word in private?");
  });
  await step("othello edits his mention", () =>
    t.patch("othello", `/api/v1/messages/${messages.mention}`, { content: "@**King Hamlet** lunch at half past twelve?" }),
  );
  await step("iago and hamlet react to it", async () => {
    expectSuccess(await t.post("iago", `/api/v1/messages/${messages.mention}/reactions`, { emoji_name: "+1" }));
    expectSuccess(await t.post("hamlet", `/api/v1/messages/${messages.mention}/reactions`, { emoji_name: "heart" }));
  });
  await step("iago takes his reaction back", () => t.delete("iago", `/api/v1/messages/${messages.mention}/reactions`, { emoji_name: "+1" }));
  await step("hamlet reads the direct message", () => t.post(me, "/api/v1/messages/flags", { messages: [messages.direct], op: "add", flag: "read" }));
  await step("hamlet stars the mention", () => t.post(me, "/api/v1/messages/flags", { messages: [messages.mention], op: "add", flag: "starred" }));
  await step("hamlet marks the direct message unread again", () =>
    t.post(me, "/api/v1/messages/flags", { messages: [messages.direct], op: "remove", flag: "read" }),
  );
  await step("othello moves the lunch topic", () =>
    t.patch("othello", `/api/v1/messages/${messages.mention}`, { topic: "lunch plans", propagate_mode: "change_all" }),
  );
  await step("iago deletes the second message", () => t.delete("iago", `/api/v1/messages/${messages.plain}`));
  await step("hamlet reads all of Denmark", () => t.post(me, "/api/v1/mark_stream_as_read", { stream_id: denmark }));
  await step("iago adds hamlet to a new channel", async () => {
    messages.channel = await makeChannel(t, { name: "reducer", subscribers: ["iago", "hamlet"] });
  });
  await step("hamlet mutes the new channel", () =>
    t.post(me, "/api/v1/users/me/subscriptions/properties", {
      subscription_data: [{ stream_id: messages.channel, property: "is_muted", value: true }],
    }),
  );
  await step("hamlet leaves the core team channel", () => t.delete(me, "/api/v1/users/me/subscriptions", { subscriptions: ["core team"] }));
  await step("hamlet mutes the Castle topic", () => t.post(me, "/api/v1/user_topics", { stream_id: denmark, topic: "Castle", visibility_policy: 1 }));
  await step("hamlet changes his name", () => t.patch(me, "/api/v1/settings", { full_name: "Prince Hamlet" }));
  await step("hamlet turns on enter to send", () => t.patch(me, "/api/v1/settings", { enter_sends: true }));
  await step("iago adds a realm emoji", () => addRealmEmoji(t, "reducer_logo"));
  await step("iago renames the organization", () => t.patch("iago", "/api/v1/realm", { name: "Zulip Reduced" }));
  for (const { step: name, events } of steps) if (events.length === 0) throw new Error(`step "${name}" gave hamlet no events`);
  expectSuccess(await t.delete(me, "/api/v1/events", { queue_id: queueId }));
  return { user_id: WEB_EVENTS_USER.id, register, messages, steps };
}
