import { describe, expect, it } from "vitest";
import { applyComposeEvent, drafts, loadComposeData, scheduledMessages, snippets } from "../../web/src/composeData.js";

// The compose tools' lists from /register and their events: drafts newest first, scheduled
// messages soonest first, snippets by title, group names for mentions.
const draft = (id: number, timestamp: number) => ({ id, type: "stream" as const, to: [1], topic: "t", content: `draft ${id}`, timestamp });
const scheduled = (id: number, at: number) => ({
  scheduled_message_id: id,
  type: "stream" as const,
  to: 1,
  topic: "t",
  content: `m${id}`,
  rendered_content: `<p>m${id}</p>`,
  scheduled_delivery_timestamp: at,
  failed: false,
});

describe("compose data", () => {
  it("loads the server's drafts, or the browser's when drafts are not synchronized", () => {
    const state = {
      user_settings: { enable_drafts_synchronization: true },
      drafts: [draft(1, 100), draft(2, 200)],
      scheduled_messages: [scheduled(5, 900), scheduled(4, 500)],
      saved_snippets: [
        { id: 2, title: "b", content: "B", date_created: 1 },
        { id: 1, title: "a", content: "A", date_created: 1 },
      ],
    };
    loadComposeData(state, () => [draft(-1, 1)]);
    expect(drafts.value.map((d) => d.id)).toEqual([2, 1]);
    expect(scheduledMessages.value.map((m) => m.scheduled_message_id)).toEqual([4, 5]);
    expect(snippets.value.map((s) => s.title)).toEqual(["a", "b"]);
    loadComposeData({ ...state, user_settings: { enable_drafts_synchronization: false } }, () => [draft(-1, 1)]);
    expect(drafts.value.map((d) => d.id)).toEqual([-1]);
  });

  it("applies drafts, scheduled_messages and saved_snippets events, and leaves other events (user groups: state.ts) alone", () => {
    loadComposeData({ drafts: [draft(1, 100)] }, () => []);
    expect(applyComposeEvent({ type: "drafts", op: "add", drafts: [draft(2, 300)] })).toBe(true);
    applyComposeEvent({ type: "drafts", op: "update", draft: { ...draft(1, 400), content: "changed" } });
    expect(drafts.value.map((d) => [d.id, d.content])).toEqual([
      [1, "changed"],
      [2, "draft 2"],
    ]);
    applyComposeEvent({ type: "drafts", op: "remove", draft_id: 1 });
    expect(drafts.value.map((d) => d.id)).toEqual([2]);

    applyComposeEvent({ type: "scheduled_messages", op: "add", scheduled_messages: [scheduled(7, 50)] });
    applyComposeEvent({ type: "scheduled_messages", op: "update", scheduled_message: { ...scheduled(7, 60), content: "later" } });
    expect(scheduledMessages.value.map((m) => m.content)).toEqual(["later"]);
    applyComposeEvent({ type: "scheduled_messages", op: "remove", scheduled_message_id: 7 });
    expect(scheduledMessages.value).toEqual([]);

    applyComposeEvent({ type: "saved_snippets", op: "add", saved_snippet: { id: 9, title: "z", content: "Z", date_created: 1 } });
    expect(snippets.value.map((s) => s.id)).toEqual([9]);
    applyComposeEvent({ type: "saved_snippets", op: "remove", saved_snippet_id: 9 });
    expect(snippets.value).toEqual([]);

    expect(applyComposeEvent({ type: "user_group", op: "add", group: { id: 4, name: "actors", description: "" } })).toBe(false);
    expect(applyComposeEvent({ type: "heartbeat" })).toBe(false);
  });
});
