import "./UserCard.css";
import { Fragment } from "preact";
import { useLayoutEffect, useRef } from "preact/hooks";
import { useModal } from "./modal.js";
import { Avatar } from "./Avatar.js";
import { api, myUserId } from "../api.js";
import { isVisitor } from "../visitor.js";
import { notice } from "../actions.js";
import { narrowHash } from "../hash.js";
import { mutedUsers, profileFields, type ProfileField, userStatuses } from "../personal.js";
import { status } from "../presence.js";
import { lookup, settings, type User, userName, users } from "../state.js";
import { closeUserCard, localTime, roleName, userCard } from "../userCard.js";
import { EmojiGlyph } from "./EmojiGlyph.js";

const PRESENCE_TEXT = { active: "Active now", idle: "Idle", offline: "Offline" } as const;

/** A custom profile field's value as text (or a link, or rendered Markdown) by Zulip's field types. */
function FieldValue({ field, value, rendered }: { field: ProfileField; value: string; rendered?: string }) {
  if (field.type === 3) {
    // a list of options: the value is the key of one
    try {
      return <>{(JSON.parse(field.field_data) as Record<string, { text?: string } | undefined>)[value]?.text ?? value}</>;
    } catch {
      return <>{value}</>;
    }
  }
  if (field.type === 6) {
    try {
      return <>{(JSON.parse(value) as number[]).map((id) => userName(id)).join(", ")}</>;
    } catch {
      return <>{value}</>;
    }
  }
  if (field.type === 5)
    return (
      <a href={value} target="_blank" rel="noopener noreferrer">
        {value}
      </a>
    );
  if (rendered) return <span class="rendered_markdown" dangerouslySetInnerHTML={{ __html: rendered }} />;
  return <>{value}</>;
}

/** A person's card: presence, local time, role, status and custom profile fields; DM, mute. */
export function UserCard() {
  const card = userCard.value;
  if (!card) return null;
  const user = users.value.get(card.userId);
  if (!user) return null;
  return <Card key={user.user_id} card={card} user={user} />;
}

function Card({ card, user }: { card: NonNullable<typeof userCard.value>; user: User }) {
  const dialog = useRef<HTMLDivElement>(null);
  // A card taller than the room below its anchor moves up (as far as the window's top) so that it
  // shows whole, name first; only a card taller than the window scrolls.
  useLayoutEffect(() => {
    const el = dialog.current;
    if (!el || el.scrollHeight <= el.clientHeight) return;
    const top = Math.max(8, window.innerHeight - 8 - el.scrollHeight);
    el.style.top = `${Math.min(top, card.top)}px`;
    el.style.maxHeight = `${window.innerHeight - 8 - Math.min(top, card.top)}px`;
  }, [card]);
  // Focus starts on "Send direct message".
  useModal(dialog, closeUserCard, (root) => root.querySelector<HTMLElement>(".card-actions .primary"));
  const presence = status(user.user_id);
  const userStatus = userStatuses.value.get(user.user_id);
  const time = localTime(user.timezone, !!settings.value.twenty_four_hour_time);
  const isMe = user.user_id === myUserId;
  const muted = mutedUsers.value.includes(user.user_id);
  const fields = profileFields.value.filter((f) => user.profile_data?.[f.id]?.value);
  const dm = () => {
    closeUserCard();
    location.hash = narrowHash([{ operator: "dm", operand: String(user.user_id), negated: false }], lookup);
  };
  const toggleMute = async () => {
    try {
      if (muted) await api.del(`/users/me/muted_users/${user.user_id}`);
      else await api.post(`/users/me/muted_users/${user.user_id}`);
    } catch (error) {
      notice.value = (error as Error).message;
    }
  };
  return (
    // A click on the backdrop closes; from the keyboard, Esc does (useModal).
    <div class="card-backdrop" role="presentation" onClick={(e) => e.target === e.currentTarget && closeUserCard()}>
      <div
        ref={dialog}
        class="user-card"
        role="dialog"
        aria-label={user.full_name}
        style={{ top: `${card.top}px`, left: `${card.left}px`, maxHeight: `${card.maxHeight}px` }}
        data-user-id={user.user_id}
      >
        <div class="card-head">
          <Avatar userId={user.user_id} name={user.full_name} big />
          <div>
            <div class="card-name">
              {!isVisitor && <span class={`presence ${presence}`} aria-hidden="true" />} {user.full_name}
              {isMe ? " (you)" : ""}
            </div>
            {/* A visitor is told nobody's presence, nor address (as Zulip's spectators). */}
            {!isVisitor && <div class="card-presence">{PRESENCE_TEXT[presence]}</div>}
          </div>
        </div>
        {(userStatus?.status_text || userStatus?.emoji_code) && (
          <div class="card-status">
            {userStatus.emoji_code && (
              <span class="status-emoji">
                <EmojiGlyph name={userStatus.emoji_name ?? ""} code={userStatus.emoji_code} type={userStatus.reaction_type ?? "unicode_emoji"} />
              </span>
            )}{" "}
            {userStatus.status_text}
          </div>
        )}
        <dl>
          {!isVisitor && (
            <>
              <dt>Email</dt>
              <dd class="card-email">{user.email}</dd>
            </>
          )}
          <dt>Role</dt>
          <dd class="card-role">{roleName(user.role, user.is_bot)}</dd>
          {time && (
            <>
              <dt>Local time</dt>
              <dd class="card-time">{time}</dd>
            </>
          )}
          {fields.map((f) => (
            <Fragment key={f.id}>
              <dt>{f.name}</dt>
              <dd class="card-field" data-field-id={f.id}>
                <FieldValue field={f} value={user.profile_data![f.id]!.value} rendered={user.profile_data![f.id]!.rendered_value} />
              </dd>
            </Fragment>
          ))}
        </dl>
        {!isVisitor && (
          <div class="card-actions">
            <button type="button" class="primary" onClick={dm}>
              Send direct message
            </button>
            {!isMe && (
              <button type="button" onClick={() => void toggleMute()}>
                {muted ? "Unmute this user" : "Mute this user"}
              </button>
            )}
            {isMe && (
              <a href="#settings/profile" onClick={closeUserCard}>
                Edit your profile
              </a>
            )}
          </div>
        )}
      </div>
    </div>
  );
}
