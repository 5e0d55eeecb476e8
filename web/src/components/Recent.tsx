import { EMPTY_TOPIC_DISPLAY_NAME, VisibilityPolicy } from "../../../src/contract/constants.js";
import { ownKeys } from "./Menu.js";
import { useEffect } from "preact/hooks";
import { narrowHash } from "../hash.js";
import { loadRecent, participants, recentRows, recentState } from "../recent.js";
import { lookup, settings, subscriptions, userName, userTopics, topicKey } from "../state.js";
import { unreadConversations } from "../unreadCounts.js";
import { myUserId } from "../api.js";
import { isVisitor } from "../visitor.js";
import { RECENT_DEFAULTS, type RecentFilters, recentRowShown } from "../conversationFilters.js";
import { conversationFacts, conversationTerms, recentChoices, recentSearch } from "../viewFilters.js";
import "./views.css";
import "./Recent.css";
import { ConversationMenu, MarkReadButton } from "./conversationMenus.js";

/** Times in the user's 12- or 24-hour style (twenty_four_hour_time). */
function formats(h24: boolean): { dayTime: Intl.DateTimeFormat; timeOnly: Intl.DateTimeFormat } {
  return {
    dayTime: new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", hour: "numeric", minute: "2-digit", hour12: !h24 }),
    timeOnly: new Intl.DateTimeFormat(undefined, { hour: "numeric", minute: "2-digit", hour12: !h24 }),
  };
}
const FORMATS = { h12: formats(false), h24: formats(true) };

function when(timestamp: number | undefined): string {
  if (timestamp === undefined) return "";
  const { dayTime, timeOnly } = settings.value.twenty_four_hour_time ? FORMATS.h24 : FORMATS.h12;
  const date = new Date(timestamp * 1000);
  const seconds = Date.now() / 1000 - timestamp;
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  return date.toDateString() === new Date().toDateString() ? timeOnly.format(date) : dayTime.format(date);
}

const FILTER_BUTTONS: Array<[keyof RecentFilters, string]> = [
  ["unreadOnly", "Unread"],
  ["participated", "Participated"],
  ["includeDms", "Include DMs"],
  ["includeMuted", "Include muted"],
];

/** The search box and filter buttons above the table (Zulip's recent view filters). */
function RecentFilterBar() {
  const choices = recentChoices.value;
  return (
    <div class="view-filters">
      <input
        type="search"
        class="filter-search"
        placeholder="Filter topics"
        aria-label="Filter conversations"
        value={recentSearch.value}
        onInput={(e) => (recentSearch.value = e.currentTarget.value)}
      />
      {/* A visitor has no unread messages, takes part in nothing, mutes nothing: only the search. */}
      {!isVisitor &&
        FILTER_BUTTONS.map(([name, label]) => (
          <button
            key={name}
            type="button"
            class={`filter-button ${choices[name] ? "on" : ""}`}
            data-filter={name}
            aria-pressed={choices[name]}
            onClick={() => (recentChoices.value = { ...choices, [name]: !choices[name] })}
          >
            {choices[name] ? "✓ " : ""}
            {label}
          </button>
        ))}
    </div>
  );
}

/** Recent conversations (#recent): topics and direct messages, newest first, live. */
export function Recent() {
  const state = recentState.value;
  useEffect(() => {
    if (!recentState.value.loaded) void loadRecent();
  }, []);
  const counts = unreadConversations.value;
  const facts = conversationFacts();
  const all = recentRows();
  const rows = all.filter((entry) =>
    recentRowShown(
      {
        conversation: entry.conversation,
        unreadCount: counts.get(entry.key)?.count ?? 0,
        participated: entry.messages.some((m) => m.sender === myUserId),
      },
      isVisitor ? RECENT_DEFAULTS : recentChoices.value,
      recentSearch.value,
      facts,
    ),
  );
  return (
    <div class="recent" role="presentation" data-nav-view="recent" onKeyDown={ownKeys}>
      <RecentFilterBar />
      {!state.loaded && state.loading && <p class="status">Loading…</p>}
      {state.error && <p class="status error">{state.error}</p>}
      {state.loaded && rows.length === 0 && <p class="status">{all.length === 0 ? "No conversations yet." : "No conversations match your filters."}</p>}
      {rows.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>Channel</th>
              <th>Topic</th>
              <th>Participants</th>
              {!isVisitor && <th class="n">Unread</th>}
              <th>Last message</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((entry) => {
              const c = entry.conversation;
              const href = narrowHash(conversationTerms(c), lookup);
              const count = counts.get(entry.key)?.count ?? 0;
              const sub = c.kind === "channel" ? subscriptions.value.get(c.channelId) : undefined;
              const people = participants(entry);
              const followed = c.kind === "channel" && userTopics.value.get(topicKey(c.channelId, c.topic)) === VisibilityPolicy.FOLLOWED;
              return (
                <tr
                  key={entry.key}
                  data-key={entry.key}
                  data-nav-row
                  class={sub?.is_muted ? "muted" : ""}
                  onClick={(e) => !(e.target as HTMLElement).closest("a, button, [role=menu]") && (location.hash = href)}
                >
                  <td class="where">
                    {c.kind === "channel" ? (
                      <a href={narrowHash(conversationTerms(c).slice(0, 1), lookup)}>
                        <span class="swatch" style={{ background: sub?.color ?? "#999" }} />
                        {sub?.name ?? "unknown channel"}
                      </a>
                    ) : (
                      <span class="dm-label">Direct message</span>
                    )}
                  </td>
                  <td class="topic">
                    <a href={href} data-nav-primary>
                      {c.kind === "channel" ? c.topic === "" ? <i>{EMPTY_TOPIC_DISPLAY_NAME}</i> : c.topic : c.userIds.map(userName).join(", ")}
                    </a>
                    {followed && (
                      <span class="followed" title="You follow this topic">
                        ◉
                      </span>
                    )}
                    {!isVisitor && <ConversationMenu conversation={c} latestId={entry.maxId} />}
                  </td>
                  <td class="people" title={people.map(userName).join(", ")}>
                    {people.slice(0, 4).map((id) => (
                      <span key={id} class="avatar" aria-label={userName(id)}>
                        {userName(id).slice(0, 1)}
                      </span>
                    ))}
                    {people.length > 4 && <span class="more">+{people.length - 4}</span>}
                  </td>
                  {!isVisitor && (
                    <td class="n">
                      {count > 0 && (
                        <>
                          <span class="count">{count}</span> <MarkReadButton conversation={c} />
                        </>
                      )}
                    </td>
                  )}
                  <td class="when">{when(entry.messages.at(-1)?.timestamp)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {state.loaded && !state.foundOldest && (
        <button type="button" class="load-more" disabled={state.loading} onClick={() => void loadRecent()}>
          {state.loading ? "Loading…" : "Load older conversations"}
        </button>
      )}
    </div>
  );
}
