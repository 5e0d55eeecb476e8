// @vitest-environment happy-dom
import { createRequire } from "node:module";
import { beforeAll, describe, expect, it } from "vitest";
import type { WebEventRecording } from "../support/webEvents.js";
import { defined } from "../../src/util/defined.js";

/**
 * The web app's event reducer (web/src/events.ts's applyEvent) on events the server really sent:
 * test/fixtures/web-events.json holds hamlet's /register answer and the events of his queue while
 * others and he acted through the API (recorded by test/support/webEvents.ts; re-record with
 * PARLEY_RECORD_FIXTURES=1 npx vitest run test/events/webEventsFixture.test.ts). Each case replays
 * the recording from the /register state up to one step and reads the app's state: unread counts,
 * the open view's messages, reactions, subscriptions, settings.
 */
const recording = createRequire(import.meta.url)("../fixtures/web-events.json") as WebEventRecording;
const ME = recording.user_id;
const OTHELLO = 12;
const IAGO = 11;
const DENMARK = 2;
const CORE_TEAM = 6;
const NOTIFICATION_BOT = 1;
const recordedId = (name: string) => defined(recording.messages[name], `the recorded id of ${name}`);
const [mention, plain, direct, NEW_CHANNEL] = [recordedId("mention"), recordedId("plain"), recordedId("direct"), recordedId("channel")];

/** The message a step's message event brought (the server's own notices have no id in the recording). */
function newMessageOf(step: string): { id: number; sender_id: number; subject: string } {
  return recording.steps.find((s) => s.step === step)!.events.find((e) => e.type === "message").message;
}

/** web/src/events.ts's reducer (imported by a computed path: its imports reach the JSX components, which the Node tsconfig does not compile). */
interface Reducer {
  applyState(state: unknown): void;
  applyEvent(event: unknown): void;
}
const EVENTS_MODULE = "../../web/src/events.js";

let web: {
  events: Reducer;
  state: typeof import("../../web/src/state.js");
  messages: typeof import("../../web/src/messages.js");
  starred: typeof import("../../web/src/starred.js");
};

beforeAll(async () => {
  // api.ts reads the user's id from the page when it loads.
  document.head.innerHTML = `<meta name="parley-user-id" content="${ME}">`;
  web = {
    events: (await import(/* @vite-ignore */ EVENTS_MODULE)) as Reducer,
    state: await import("../../web/src/state.js"),
    messages: await import("../../web/src/messages.js"),
    starred: await import("../../web/src/starred.js"),
  };
});

/** The app's state after /register and every event up to and including `step`'s. */
function replayThrough(step: string) {
  const last = recording.steps.findIndex((s) => s.step === step);
  expect(last, `a step named "${step}"`).toBeGreaterThanOrEqual(0);
  web.events.applyState(structuredClone(recording.register));
  // The open view: all messages, caught up with the newest, so new messages join it.
  web.messages.view.value = { ...web.messages.view.value, terms: [], messages: [], loading: false, foundNewest: true, foundOldest: true };
  for (const { events } of recording.steps.slice(0, last + 1)) for (const event of events) web.events.applyEvent(structuredClone(event));
  const { unread, subscriptions, users, settings, realmEmoji, realmName, userTopics, topicKey } = web.state;
  const shown = (id: number) => web.messages.view.value.messages.find((m) => m.id === id);
  return { unread, subscriptions, users, settings, realmEmoji, realmName, userTopics, topicKey, shown, starred: web.starred.starredIds.value };
}

describe("the web app's event reducer on recorded events", () => {
  it("starts from /register's unread messages", () => {
    const registered = recording.register.unread_msgs as { count: number };
    web.events.applyState(structuredClone(recording.register));
    expect(web.state.unread.count()).toBe(registered.count);
    expect(web.state.unread.countChannel(DENMARK)).toBe(2);
    expect(web.state.unread.countDm([OTHELLO])).toBe(1);
    expect(web.state.unread.countMentions()).toBe(0);
  });

  it("a new channel message is unread, counted in its topic, shown, and a mention counts as one", () => {
    const state = replayThrough("othello mentions hamlet in Denmark");
    expect(state.unread.countTopic(DENMARK, "lunch")).toBe(1);
    expect(state.unread.countChannel(DENMARK)).toBe(3);
    expect(state.unread.countMentions()).toBe(1);
    expect(state.shown(mention)).toMatchObject({ sender_id: OTHELLO, subject: "lunch", flags: ["mentioned"] });
  });

  it("a second message to the topic adds to its count but not to the mentions", () => {
    const state = replayThrough("othello sends a second message to the topic");
    expect(state.unread.countTopic(DENMARK, "lunch")).toBe(2);
    expect(state.unread.countMentions()).toBe(1);
  });

  it("a direct message counts in its conversation", () => {
    const state = replayThrough("othello writes to hamlet directly");
    expect(state.unread.countDm([OTHELLO])).toBe(2);
    expect(state.shown(direct)?.content).toContain("A word in private?");
  });

  it("an edit replaces the shown content and stamps the edit", () => {
    const state = replayThrough("othello edits his mention");
    expect(state.shown(mention)?.content).toContain("lunch at half past twelve?");
    expect(state.shown(mention)?.last_edit_timestamp).toEqual(expect.any(Number));
    expect(state.unread.countMentions()).toBe(1);
  });

  it("reactions are added per user and emoji, and removed again", () => {
    const added = replayThrough("iago and hamlet react to it");
    expect(added.shown(mention)?.reactions).toEqual([
      expect.objectContaining({ emoji_name: "+1", user_id: IAGO }),
      expect.objectContaining({ emoji_name: "heart", user_id: ME }),
    ]);
    const removed = replayThrough("iago takes his reaction back");
    expect(removed.shown(mention)?.reactions).toEqual([expect.objectContaining({ emoji_name: "heart", user_id: ME })]);
  });

  it("reading a message takes it out of the counts and flags it read", () => {
    const state = replayThrough("hamlet reads the direct message");
    expect(state.unread.countDm([OTHELLO])).toBe(1);
    expect(state.unread.isUnread(direct)).toBe(false);
    expect(state.shown(direct)?.flags).toContain("read");
  });

  it("starring flags the message and counts it as starred", () => {
    const state = replayThrough("hamlet stars the mention");
    expect(state.shown(mention)?.flags).toContain("starred");
    expect(state.starred.has(mention)).toBe(true);
  });

  it("marking a message unread again puts it back in its conversation's count", () => {
    const state = replayThrough("hamlet marks the direct message unread again");
    expect(state.unread.countDm([OTHELLO])).toBe(2);
    expect(state.unread.isUnread(direct)).toBe(true);
    expect(state.shown(direct)?.flags).not.toContain("read");
  });

  it("moving a topic moves its messages and their unread counts, and the notice of the move is unread there", () => {
    const state = replayThrough("othello moves the lunch topic");
    const notice = newMessageOf("othello moves the lunch topic");
    expect(notice).toMatchObject({ sender_id: NOTIFICATION_BOT, subject: "lunch plans" });
    expect(state.unread.countTopic(DENMARK, "lunch")).toBe(0);
    expect(state.unread.countTopic(DENMARK, "lunch plans")).toBe(3);
    expect(state.unread.isUnread(notice.id)).toBe(true);
    expect(state.unread.countMentions()).toBe(1);
    expect(state.shown(mention)?.subject).toBe("lunch plans");
    expect(state.shown(plain)?.subject).toBe("lunch plans");
  });

  it("a deleted message leaves the view and the counts", () => {
    const state = replayThrough("iago deletes the second message");
    expect(state.shown(plain)).toBeUndefined();
    expect(state.unread.isUnread(plain)).toBe(false);
    expect(state.unread.countTopic(DENMARK, "lunch plans")).toBe(2);
  });

  it("reading a whole channel empties its count and keeps the rest", () => {
    const before = replayThrough("iago deletes the second message").unread.count();
    const state = replayThrough("hamlet reads all of Denmark");
    expect(state.unread.countChannel(DENMARK)).toBe(0);
    expect(state.unread.countMentions()).toBe(0);
    // Castle's two seeded messages, the mention and the notice of the move.
    expect(state.unread.count()).toBe(before - 4);
  });

  it("being added to a new channel subscribes, and muting it is a subscription update", () => {
    const added = replayThrough("iago adds hamlet to a new channel");
    expect(added.subscriptions.value.get(NEW_CHANNEL)).toMatchObject({ name: "reducer", is_muted: false });
    // Notification Bot's notice of the new channel, unread in it.
    expect(newMessageOf("iago adds hamlet to a new channel")).toMatchObject({ sender_id: NOTIFICATION_BOT });
    expect(added.unread.countChannel(NEW_CHANNEL)).toBe(1);
    const muted = replayThrough("hamlet mutes the new channel");
    expect(muted.subscriptions.value.get(NEW_CHANNEL)).toMatchObject({ name: "reducer", is_muted: true });
  });

  it("leaving a channel unsubscribes", () => {
    expect(replayThrough("hamlet mutes the new channel").subscriptions.value.has(CORE_TEAM)).toBe(true);
    expect(replayThrough("hamlet leaves the core team channel").subscriptions.value.has(CORE_TEAM)).toBe(false);
  });

  it("muting a topic sets its visibility policy", () => {
    const state = replayThrough("hamlet mutes the Castle topic");
    expect(state.userTopics.value.get(state.topicKey(DENMARK, "Castle"))).toBe(1);
  });

  it("a user's changed name, a setting, a realm emoji and the organization's name follow their events", () => {
    expect(replayThrough("hamlet changes his name").users.value.get(ME)?.full_name).toBe("Prince Hamlet");
    expect(replayThrough("hamlet turns on enter to send").settings.value.enter_sends).toBe(true);
    const last = replayThrough("iago renames the organization");
    expect([...last.realmEmoji.value.values()].map((e) => e.name)).toContain("reducer_logo");
    expect(last.realmName.value).toBe("Zulip Reduced");
  });
});
