import { EMPTY_TOPIC_DISPLAY_NAME } from "../../src/contract/constants.js";
import type { Route, Term } from "./hash.js";
import { subscriptions, userName } from "./state.js";

/** The heading of a narrow (the view's title bar, the Inbox rows). */
export function title(terms: readonly Term[]): string {
  const channel = terms.find((t) => t.operator === "channel");
  const topic = terms.find((t) => t.operator === "topic");
  const dm = terms.find((t) => t.operator === "dm");
  const search = terms.find((t) => t.operator === "search");
  const is = terms.find((t) => t.operator === "is");
  if (channel) {
    const name = subscriptions.value.get(Number(channel.operand))?.name ?? channel.operand;
    return topic ? `#${name} › ${topic.operand || EMPTY_TOPIC_DISPLAY_NAME}` : `#${name}`;
  }
  if (dm)
    return dm.operand
      .split(",")
      .map((id) => userName(Number(id)))
      .join(", ");
  if (search) return `Search: ${search.operand}`;
  if (is?.operand === "starred") return "Starred messages";
  if (is?.operand === "mentioned") return "Mentions";
  if (is?.operand === "dm") return "Direct messages";
  return "Combined feed";
}

const OVERLAY_TITLES: Record<string, string> = { settings: "Settings", organization: "Organization settings", invite: "Invite users", channels: "Channels" };

/** The name of what the window shows, for the browser tab (Zulip's narrow title). */
export function routeTitle(r: Route, homeView: string): string {
  if (r.kind === "narrow") return title(r.terms);
  if (r.kind === "overlay") return OVERLAY_TITLES[r.name] ?? "Parley";
  if (r.kind === "invalid") return "Invalid URL";
  const kind = r.kind === "home" ? (homeView === "recent_topics" ? "recent" : homeView === "all_messages" ? "feed" : "inbox") : r.kind;
  return kind === "inbox" ? "Inbox" : kind === "recent" ? "Recent conversations" : "Combined feed";
}
