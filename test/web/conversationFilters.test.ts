import { describe, expect, it } from "vitest";
import { type ConversationFacts, inboxFolders, isMutedConversation, RECENT_DEFAULTS, recentRowShown } from "../../web/src/conversationFilters.js";
import type { Conversation } from "../../web/src/unread.js";

// What the Inbox and Recent conversations list for the user's filter choices.
const VERONA = 1;
const DENMARK = 2; // muted
const facts: ConversationFacts = {
  channelName: (id) => (id === VERONA ? "Verona" : "Denmark"),
  channelMuted: (id) => id === DENMARK,
  topicPolicy: (c) =>
    (({ "1:muted talk": 1, "2:unmuted talk": 2, "1:followed talk": 3, "2:followed talk": 3 }) as Record<string, number>)[`${c.channelId}:${c.topic}`] ?? 0,
  dmNames: (ids) => ids.map((id) => (id === 12 ? "Othello" : "Iago")).join(", "),
  userMuted: (id) => id === 11,
};
const topic = (channelId: number, name: string): Conversation => ({ kind: "channel", channelId, topic: name });
const rows = [
  { key: "a", conversation: topic(VERONA, "lunch"), count: 2, maxId: 10 },
  { key: "b", conversation: topic(VERONA, "muted talk"), count: 1, maxId: 11 },
  { key: "c", conversation: topic(VERONA, "followed talk"), count: 1, maxId: 12 },
  { key: "d", conversation: topic(DENMARK, "castle"), count: 4, maxId: 13 },
  { key: "e", conversation: topic(DENMARK, "unmuted talk"), count: 1, maxId: 14 },
  { key: "f", conversation: { kind: "dm", userIds: [12] } as Conversation, count: 3, maxId: 15 },
];
const shape = (folders: ReturnType<typeof inboxFolders>) => folders.map((f) => [f.key, f.count, f.rows.map((r) => r.key)]);

describe("muted conversations (left out of unread counts: sidebar, views, title and favicon)", () => {
  it("a muted topic, or a topic of a muted channel unless it is unmuted or followed", () => {
    const muted = (channelId: number, name: string) => isMutedConversation(topic(channelId, name), facts);
    expect([muted(VERONA, "lunch"), muted(VERONA, "muted talk"), muted(VERONA, "followed talk")]).toEqual([false, true, false]);
    expect([muted(DENMARK, "castle"), muted(DENMARK, "unmuted talk"), muted(DENMARK, "followed talk")]).toEqual([true, false, false]);
    // A DM: muted when every other person in it is a muted user.
    expect(isMutedConversation({ kind: "dm", userIds: [12] }, facts)).toBe(false);
    expect(isMutedConversation({ kind: "dm", userIds: [11] }, facts)).toBe(true);
    expect(isMutedConversation({ kind: "dm", userIds: [11, 12] }, facts)).toBe(false);
  });
});

describe("Inbox filters", () => {
  it("unmuted view: DMs first, channels by name, newest first, without muted topics and channels (unmuted topics stay)", () => {
    expect(shape(inboxFolders(rows, "unmuted", "", facts))).toEqual([
      ["dm", 3, ["f"]],
      ["channel:2", 1, ["e"]],
      ["channel:1", 3, ["c", "a"]],
    ]);
  });

  it("all view shows everything; followed view only followed topics", () => {
    expect(shape(inboxFolders(rows, "all", "", facts))).toEqual([
      ["dm", 3, ["f"]],
      ["channel:2", 5, ["e", "d"]],
      ["channel:1", 4, ["c", "b", "a"]],
    ]);
    expect(shape(inboxFolders(rows, "followed", "", facts))).toEqual([["channel:1", 1, ["c"]]]);
  });

  it("search matches every word in the channel and topic, or the people, in any case", () => {
    expect(shape(inboxFolders(rows, "all", "verona TALK", facts))).toEqual([["channel:1", 2, ["c", "b"]]]);
    expect(shape(inboxFolders(rows, "all", "othel", facts))).toEqual([["dm", 3, ["f"]]]);
    expect(inboxFolders(rows, "all", "nothing like this", facts)).toEqual([]);
  });
});

describe("Recent conversations filters", () => {
  const row = (conversation: Conversation, unreadCount = 0, participated = false) => ({ conversation, unreadCount, participated });
  const shown = (r: ReturnType<typeof row>, change = {}, query = "") => recentRowShown(r, { ...RECENT_DEFAULTS, ...change }, query, facts);

  it("by default: DMs in, muted conversations out", () => {
    expect(shown(row(topic(VERONA, "lunch")))).toBe(true);
    expect(shown(row({ kind: "dm", userIds: [12] }))).toBe(true);
    expect(shown(row(topic(DENMARK, "castle")))).toBe(false);
    expect(shown(row(topic(VERONA, "muted talk")))).toBe(false);
    expect(shown(row(topic(DENMARK, "unmuted talk")))).toBe(true);
    expect(shown(row(topic(DENMARK, "castle")), { includeMuted: true })).toBe(true);
  });

  it("unread only, participated, no DMs, and search", () => {
    expect(shown(row(topic(VERONA, "lunch")), { unreadOnly: true })).toBe(false);
    expect(shown(row(topic(VERONA, "lunch"), 2), { unreadOnly: true })).toBe(true);
    expect(shown(row(topic(VERONA, "lunch")), { participated: true })).toBe(false);
    expect(shown(row(topic(VERONA, "lunch"), 0, true), { participated: true })).toBe(true);
    expect(shown(row({ kind: "dm", userIds: [12] }), { includeDms: false })).toBe(false);
    expect(shown(row(topic(VERONA, "lunch")), {}, "lun")).toBe(true);
    expect(shown(row(topic(VERONA, "lunch")), {}, "denmark")).toBe(false);
  });
});
