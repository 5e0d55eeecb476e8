import "./UserList.css";
import { signal } from "@preact/signals";
import { myUserId } from "../api.js";
import { narrowHash } from "../hash.js";
import { mutedUsers } from "../personal.js";
import { presences, status } from "../presence.js";
import { lookup, users } from "../state.js";
import { openUserCard } from "../userCard.js";

const ORDER = { active: 0, idle: 1, offline: 2 } as const;

/** Rendered at first: a large organization's list grows on request (Zulip renders its buddy list progressively too). */
const FIRST = 100;
const showAll = signal(false);

/** The right column: the organization's people (not those the user muted, as in Zulip), who is active first, each a link to a DM. */
export function UserList() {
  void presences.value; // re-render on presence changes
  const muted = mutedUsers.value;
  const people = [...users.value.values()]
    .filter((u) => !u.is_bot && u.is_active !== false && !muted.includes(u.user_id))
    .map((u) => ({ user: u, status: status(u.user_id) }))
    .sort((a, b) => ORDER[a.status] - ORDER[b.status] || a.user.full_name.localeCompare(b.user.full_name));
  return (
    <aside class="user-list" id="user-list" aria-label="People">
      <h2>People</h2>
      <ul>
        {(showAll.value ? people : people.slice(0, FIRST)).map(({ user, status: s }) => (
          <li key={user.user_id} class={s} data-user-id={user.user_id}>
            <a
              href={narrowHash([{ operator: "dm", operand: String(user.user_id), negated: false }], lookup)}
              title={`${user.full_name} (${s})`}
              onClick={(e) => {
                // A click opens the person's card (with "Send direct message"); a modified click follows the link.
                if (e.ctrlKey || e.metaKey || e.shiftKey) return;
                e.preventDefault();
                openUserCard(user.user_id, e.currentTarget);
              }}
            >
              <span class="presence" aria-label={s} />
              <span class="name">
                {user.full_name}
                {user.user_id === myUserId ? " (you)" : ""}
              </span>
            </a>
          </li>
        ))}
      </ul>
      {!showAll.value && people.length > FIRST && (
        <button type="button" class="more-people" onClick={() => (showAll.value = true)}>
          {people.length - FIRST} more people
        </button>
      )}
    </aside>
  );
}
