import { describe, expect, it } from "vitest";
import { badgeCount, badgeText, pageTitle } from "../../web/src/unreadBadge.js";
import { UnreadIndex } from "../../web/src/unread.js";

// The unread count of the tab title, favicon and Zulip's desktop app (desktop_icon_count_display).
const ME = 10;
const MUTED_CHANNEL = 3;
const FOLLOWED = { channel: 1, topic: "plans" };

function index(): UnreadIndex {
  const unread = new UnreadIndex();
  unread.load(
    {
      streams: [
        { stream_id: 1, topic: "lunch", unread_message_ids: [1, 2, 3] },
        { stream_id: 1, topic: "Plans", unread_message_ids: [4] },
        { stream_id: MUTED_CHANNEL, topic: "noise", unread_message_ids: [5, 6] },
      ],
      pms: [{ other_user_id: 12, unread_message_ids: [7, 8] }],
      huddles: [],
      mentions: [2, 7],
    },
    ME,
  );
  return unread;
}

const state = {
  muted: (c: { channelId: number }) => c.channelId === MUTED_CHANNEL,
  followed: (c: { channelId: number; topic: string }) => c.channelId === FOLLOWED.channel && c.topic.toLowerCase() === FOLLOWED.topic,
};

describe("the unread badge", () => {
  it("counts per desktop_icon_count_display: all unmuted, DMs+mentions+followed, DMs+mentions, none", () => {
    expect(badgeCount(index(), 1, state)).toBe(6);
    expect(badgeCount(index(), 2, state)).toBe(4);
    expect(badgeCount(index(), 3, state)).toBe(3);
    expect(badgeCount(index(), 4, state)).toBe(0);
  });

  it("follows messages read and received", () => {
    const unread = index();
    unread.remove([7, 8]);
    expect(badgeCount(unread, 3, state)).toBe(1);
    unread.add(9, { kind: "dm", userIds: [12] });
    expect(badgeCount(unread, 3, state)).toBe(2);
  });

  it("titles the tab as Zulip does, the count first when there is one", () => {
    expect(pageTitle(3, "Inbox", "Zulip Dev")).toBe("(3) Inbox - Zulip Dev - Parley");
    expect(pageTitle(0, "#Verona > lunch", "Zulip Dev")).toBe("#Verona > lunch - Zulip Dev - Parley");
    expect(pageTitle(0, "Inbox", "")).toBe("Inbox - Parley");
  });

  it("writes the favicon badge in at most three characters", () => {
    expect([badgeText(0), badgeText(7), badgeText(99), badgeText(1000)]).toEqual(["", "7", "99", "99+"]);
  });
});
