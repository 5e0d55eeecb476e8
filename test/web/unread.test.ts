import { describe, expect, it } from "vitest";
import { conversationKey, dmPeople, UnreadIndex } from "../../web/src/unread.js";

// The web app's unread bookkeeping: from /register's unread_msgs, then message and flag events.
const ME = 9;

function loaded(): UnreadIndex {
  const index = new UnreadIndex();
  index.load(
    {
      streams: [
        { stream_id: 1, topic: "Lunch", unread_message_ids: [10, 11] },
        { stream_id: 1, topic: "plans", unread_message_ids: [12] },
        { stream_id: 2, topic: "x", unread_message_ids: [13] },
      ],
      pms: [{ other_user_id: 12, unread_message_ids: [14, 15] }],
      huddles: [{ user_ids_string: "9,12,15", unread_message_ids: [16] }],
      mentions: [11, 16],
    },
    ME,
  );
  return index;
}

describe("unread bookkeeping", () => {
  it("counts per channel, topic (any case), DM conversation and mentions", () => {
    const index = loaded();
    expect(index.count()).toBe(7);
    expect(index.countChannel(1)).toBe(3);
    expect(index.countTopic(1, "lunch")).toBe(2);
    expect(index.countDm([12])).toBe(2);
    expect(index.countDm([15, 12])).toBe(1);
    expect(index.countMentions()).toBe(2);
  });

  it("adds new messages and forgets read ones (mentions too)", () => {
    const index = loaded();
    index.add(20, { kind: "channel", channelId: 1, topic: "LUNCH" }, true);
    expect(index.countTopic(1, "lunch")).toBe(3);
    expect(index.countMentions()).toBe(3);
    index.remove([10, 11, 20, 999]);
    expect(index.countTopic(1, "Lunch")).toBe(0);
    expect(index.countChannel(1)).toBe(1);
    expect(index.countMentions()).toBe(1);
    expect(index.isUnread(12)).toBe(true);
    expect(index.isUnread(10)).toBe(false);
  });

  it("moves unread messages with their topic", () => {
    const index = loaded();
    index.move([10, 11, 999], { kind: "channel", channelId: 2, topic: "moved" });
    expect(index.countChannel(1)).toBe(1);
    expect(index.countTopic(2, "moved")).toBe(2);
    expect(index.isUnread(999)).toBe(false); // a read message stays read
  });

  it("groups by conversation, newest message last seen", () => {
    const groups = loaded().conversations();
    expect(groups.get(conversationKey({ kind: "channel", channelId: 1, topic: "lunch" }))).toMatchObject({ count: 2, maxId: 11 });
    expect(groups.get(conversationKey({ kind: "dm", userIds: [12, 15] }))).toMatchObject({ count: 1, maxId: 16 });
  });

  it("names a DM by the people other than me, or me alone", () => {
    expect(dmPeople([9, 15, 12], ME)).toEqual([12, 15]);
    expect(dmPeople([9], ME)).toEqual([9]);
  });
});

describe("unread index as a signal source", () => {
  it("recomputes a computed count on every change, once per batch", async () => {
    const { batch, computed } = await import("@preact/signals");
    const index = loaded();
    let runs = 0;
    const total = computed(() => (runs++, index.count()));
    expect(total.value).toBe(7);
    index.remove([10]);
    expect(total.value).toBe(6);
    batch(() => {
      index.add(20, { kind: "dm", userIds: [12] });
      index.add(21, { kind: "dm", userIds: [12] });
    });
    expect(total.value).toBe(8);
    expect(runs).toBe(3);
  });
});
