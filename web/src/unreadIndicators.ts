import { effect } from "@preact/signals";
import { sendToDesktopApp } from "./electronBridge.js";
import { drawFavicon } from "./favicon.js";
import { pageTitle } from "./unreadBadge.js";
import { realm, realmName, route, settings } from "./state.js";
import { badgeUnread, unreadDms } from "./unreadCounts.js";
import { routeTitle } from "./viewTitle.js";

/**
 * The unread count outside the page, kept live: in the tab's title, on its favicon, and in
 * Zulip's desktop app (its total_unread_count), per desktop_icon_count_display.
 */
export function startUnreadIndicators(): void {
  let sent = -1;
  effect(() => {
    const count = badgeUnread.value;
    document.title = pageTitle(count, routeTitle(route.value, settings.value.web_home_view), realmName.value);
    drawFavicon(count, unreadDms.value);
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
