import type { MessagesResponse } from "../../src/contract/responses.js";
import { api } from "./api.js";
import { channelTopics } from "./state.js";
import { WEB_PUBLIC_TERM } from "./visitor.js";

/** How many of a channel's newest messages a visitor's topic list is built from. */
const TOPIC_SCAN = 1000;

/**
 * A web-public channel's topics for a visitor, newest first: GET /users/me/{id}/topics is for
 * users only, so, as Zulip's web app does for spectators (its topic list comes from the messages
 * it has fetched), they are read off the channel's newest messages.
 */
export async function loadVisitorTopics(channelId: number): Promise<void> {
  try {
    const result = await api.get<MessagesResponse>("/messages", {
      narrow: [{ operator: "channel", operand: channelId }, WEB_PUBLIC_TERM],
      anchor: "newest",
      num_before: TOPIC_SCAN,
      num_after: 0,
      apply_markdown: false,
      client_gravatar: false,
    });
    const newest = new Map<string, { name: string; max_id: number }>();
    for (const m of result.messages) {
      const key = m.subject.toLowerCase();
      const seen = newest.get(key);
      if (!seen || seen.max_id < m.id) newest.set(key, { name: m.subject, max_id: m.id });
    }
    const map = new Map(channelTopics.value);
    map.set(
      channelId,
      [...newest.values()].sort((a, b) => b.max_id - a.max_id),
    );
    channelTopics.value = map;
  } catch {
    // the sidebar simply shows no topics
  }
}
