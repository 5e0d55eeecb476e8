import "./NotificationBanner.css";
import { askPermission, bannerWanted, dismissBanner } from "../notifications.js";

/** Zulip's "enable desktop notifications" banner, above the view while the browser has not been asked. */
export function NotificationBanner() {
  if (!bannerWanted()) return null;
  return (
    <div class="notification-banner" role="region" aria-label="Desktop notifications">
      <span>Parley needs your permission to enable desktop notifications.</span>
      <button type="button" class="enable" onClick={() => void askPermission()}>
        Enable desktop notifications
      </button>
      <a href="#settings/notifications">Customize notifications</a>
      <button type="button" class="never" onClick={() => dismissBanner(true)}>
        Never ask on this computer
      </button>
      <button type="button" class="close" aria-label="Dismiss" title="Dismiss" onClick={() => dismissBanner(false)}>
        ×
      </button>
    </div>
  );
}
