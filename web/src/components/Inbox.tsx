import { narrowHash, type Term } from "../hash.js";
import { lookup, subscriptions, unread, unreadVersion } from "../state.js";
import { title } from "../viewTitle.js";

/** Inbox: every conversation with unread messages, channels first. */
export function Inbox() {
  unreadVersion.value;
  const rows = [...unread.conversations().values()].filter(({ conversation: c }) => c.kind === "dm" || !subscriptions.value.get(c.channelId)?.is_muted);
  rows.sort((a, b) => b.maxId - a.maxId);
  return (
    <div class="inbox">
      {rows.length === 0 && <p class="status">You have no unread messages.</p>}
      <ul>
        {rows.map(({ conversation: c, count }) => {
          const terms: Term[] =
            c.kind === "channel"
              ? [
                  { operator: "channel", operand: String(c.channelId), negated: false },
                  { operator: "topic", operand: c.topic, negated: false },
                ]
              : [{ operator: "dm", operand: c.userIds.join(","), negated: false }];
          return (
            <li key={narrowHash(terms, lookup)}>
              <a href={narrowHash(terms, lookup)}>
                <span class="name">{title(terms)}</span>
                <span class="count">{count}</span>
              </a>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
