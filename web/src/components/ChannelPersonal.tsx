import { STREAM_ASSIGNMENT_COLORS } from "../../../src/contract/streamColors.js";
import { api } from "../api.js";
import type { FullSubscription } from "../channels.js";
import { settings } from "../state.js";
import { attempt } from "./channelShared.js";

/**
 * The user's own settings for a channel (#channels/<id>/<slug>/personal): colour, mute, pin and
 * notifications, saved at once through POST /users/me/subscriptions/properties; the values shown
 * come back through subscription update events, as does the sidebar.
 */

/** Zulip's palette for channel colours: the one the server hands new subscriptions out from. */
const CHANNEL_COLORS = STREAM_ASSIGNMENT_COLORS;

/** Notification properties and the user setting a null value inherits. */
const NOTIFICATIONS: Array<[keyof FullSubscription & string, string, string]> = [
  ["desktop_notifications", "Visual desktop notifications", "enable_stream_desktop_notifications"],
  ["audible_notifications", "Audible desktop notifications", "enable_stream_audible_notifications"],
  ["push_notifications", "Mobile notifications", "enable_stream_push_notifications"],
  ["email_notifications", "Email notifications", "enable_stream_email_notifications"],
];

const setProperty = (channelId: number, property: string, value: boolean | string) =>
  attempt(() => api.post("/users/me/subscriptions/properties", { subscription_data: [{ stream_id: channelId, property, value }] }));

export function ChannelPersonal({ sub }: { sub: FullSubscription }) {
  const id = sub.stream_id;
  return (
    <div class="channel-personal">
      <fieldset>
        <legend>Channel color</legend>
        <div class="color-palette" role="radiogroup" aria-label="Channel color">
          {CHANNEL_COLORS.map((color) => (
            <button
              key={color}
              type="button"
              role="radio"
              class="color-swatch"
              aria-checked={sub.color.toLowerCase() === color}
              aria-label={`Color ${color}`}
              data-color={color}
              style={{ background: color }}
              onClick={() => void setProperty(id, "color", color)}
            />
          ))}
          <label class="custom-color">
            <input type="color" name="color" value={sub.color} onChange={(e) => void setProperty(id, "color", e.currentTarget.value)} />
            Custom
          </label>
        </div>
      </fieldset>
      <fieldset>
        <legend>Display</legend>
        <label class="check">
          <input type="checkbox" name="is_muted" checked={sub.is_muted} onChange={(e) => void setProperty(id, "is_muted", e.currentTarget.checked)} />
          Mute channel
        </label>
        <label class="check">
          <input type="checkbox" name="pin_to_top" checked={sub.pin_to_top} onChange={(e) => void setProperty(id, "pin_to_top", e.currentTarget.checked)} />
          Pin channel to top of left sidebar
        </label>
      </fieldset>
      <fieldset>
        <legend>Notifications</legend>
        {NOTIFICATIONS.map(([property, label, inherited]) => {
          const own = sub[property] as boolean | null | undefined;
          const value = own ?? !!settings.value[inherited];
          return (
            <label class="check" key={property}>
              <input type="checkbox" name={property} checked={value} onChange={(e) => void setProperty(id, property, e.currentTarget.checked)} />
              {label}
              {(own === null || own === undefined) && <small class="hint">(default)</small>}
            </label>
          );
        })}
      </fieldset>
    </div>
  );
}
