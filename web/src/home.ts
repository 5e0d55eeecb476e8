import { settings } from "./state.js";

/** What "#" (the home view) shows: the user's web_home_view. */
export function homeKind(): "inbox" | "recent" | "feed" {
  const home = settings.value.web_home_view;
  return home === "recent_topics" ? "recent" : home === "all_messages" ? "feed" : "inbox";
}
