import { VisibilityPolicy } from "../../src/contract/constants.js";
import { effect } from "@preact/signals";
import { sendToDesktopApp } from "./electronBridge.js";
import { drawFavicon } from "./favicon.js";
import { badgeCount, pageTitle } from "./unreadBadge.js";
import { isMutedConversation } from "./conversationFilters.js";
import { realm, realmName, route, settings, unread, unreadVersion } from "./state.js";
import { conversationFacts } from "./viewFilters.js";
import { routeTitle } from "./viewTitle.js";

/**
 * The unread count outside the page, kept live: in the tab's title, on its favicon, and in
 * Zulip's desktop app (its total_unread_count), per desktop_icon_count_display.
 */
export function startUnreadIndicators(): void {
  let sent = -1;
  effect(() => {
    void unreadVersion.value;
    const facts = conversationFacts();
    const count = badgeCount(unread, Number(settings.value.desktop_icon_count_display ?? 1), {
      // A followed topic of a muted channel counts too, as an unmuted one (Zulip's is_muted_conversation).
      muted: (c) => isMutedConversation(c, facts),
      followed: (c) => facts.topicPolicy(c) === VisibilityPolicy.FOLLOWED,
    });
    document.title = pageTitle(count, routeTitle(route.value, settings.value.web_home_view), realmName.value);
    drawFavicon(count, unread.count((c) => c.kind === "dm") > 0);
    if (count !== sent) sendToDesktopApp("total_unread_count", (sent = count));
  });
  effect(() => {
    if (realmName.value) sendToDesktopApp("realm_name", realmName.value);
  });
  effect(() => {
    const icon = realm.value.realm_icon_url;
    if (typeof icon === "string" && icon) sendToDesktopApp("realm_icon_url", new URL(icon, location.href).href);
  });
}
