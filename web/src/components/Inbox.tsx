import { EMPTY_TOPIC_DISPLAY_NAME, VisibilityPolicy } from "../../../src/contract/constants.js";
import { ownKeys } from "./Menu.js";
import "./views.css";
import { narrowHash } from "../hash.js";
import { type InboxFolder, type InboxView, inboxFolders } from "../conversationFilters.js";
import { lookup, subscriptions, topicKey, userName, userTopics } from "../state.js";
import { unreadConversations } from "../unreadCounts.js";
import { conversationFacts, conversationTerms, inboxChoices, inboxSearch } from "../viewFilters.js";
import { markChannelRead, markNarrowRead } from "../actions.js";
import { ChannelMenu, ConversationMenu, MarkReadButton } from "./conversationMenus.js";

const VIEWS: Array<[InboxView, string]> = [
  ["unmuted", "Unmuted topics"],
  ["all", "All topics"],
  ["followed", "Followed topics"],
];

function toggleFolder(key: string): void {
  const { collapsed } = inboxChoices.value;
  inboxChoices.value = { ...inboxChoices.value, collapsed: collapsed.includes(key) ? collapsed.filter((k) => k !== key) : [...collapsed, key] };
}

function Folder({ folder }: { folder: InboxFolder }) {
  const collapsed = inboxChoices.value.collapsed.includes(folder.key);
  const sub = folder.channelId === null ? undefined : subscriptions.value.get(folder.channelId);
  const name = folder.channelId === null ? "Direct messages" : (sub?.name ?? "unknown channel");
  return (
    <section class={`inbox-folder ${sub?.is_muted ? "muted" : ""}`} data-folder={folder.key}>
      <header class="folder-head" data-nav-row data-nav-heading>
        <button
          type="button"
          class="fold"
          aria-expanded={!collapsed}
          aria-label={`${collapsed ? "Expand" : "Collapse"} ${name}`}
          onClick={() => toggleFolder(folder.key)}
        >
          {collapsed ? "▸" : "▾"}
        </button>
        {folder.channelId === null ? (
          <span class="folder-name">{name}</span>
        ) : (
          <a class="folder-name" data-nav-primary href={narrowHash([{ operator: "channel", operand: String(folder.channelId), negated: false }], lookup)}>
            <span class="swatch" style={{ background: sub?.color ?? "#999" }} />
            {name}
          </a>
        )}
        <span class="count">{folder.count}</span>
        {folder.channelId === null ? (
          <button
            type="button"
            class="mark-read"
            aria-label="Mark all direct messages as read"
            title="Mark as read"
            onClick={() => void markNarrowRead([{ operator: "is", operand: "dm" }])}
          />
        ) : (
          <>
            <button
              type="button"
              class="mark-read"
              aria-label={`Mark channel ${name} as read`}
              title="Mark as read"
              onClick={() => void markChannelRead(folder.channelId!)}
            />
            <ChannelMenu channelId={folder.channelId} name={name} />
          </>
        )}
      </header>
      {!collapsed && (
        <ul>
          {folder.rows.map(({ key, conversation: c, count, maxId }) => (
            <li key={key} data-key={key} data-nav-row>
              <a href={narrowHash(conversationTerms(c), lookup)}>
                <span class="name">{c.kind === "dm" ? c.userIds.map(userName).join(", ") : c.topic === "" ? <i>{EMPTY_TOPIC_DISPLAY_NAME}</i> : c.topic}</span>
                {c.kind === "channel" && userTopics.value.get(topicKey(c.channelId, c.topic)) === VisibilityPolicy.FOLLOWED && (
                  <span class="followed-mark" title="You follow this topic">
                    ◉
                  </span>
                )}
                <span class="count">{count}</span>
              </a>
              <MarkReadButton conversation={c} />
              <ConversationMenu conversation={c} latestId={maxId} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Inbox: every conversation with unread messages, in folders (direct messages, then each channel), filtered. */
export function Inbox() {
  const choices = inboxChoices.value;
  const all = [...unreadConversations.value].map(([key, row]) => ({ key, ...row }));
  const folders = inboxFolders(all, choices.view, inboxSearch.value, conversationFacts());
  return (
    <div class="inbox" role="presentation" data-nav-view="inbox" onKeyDown={ownKeys}>
      <div class="view-filters">
        <input
          type="search"
          class="filter-search"
          placeholder="Filter"
          aria-label="Filter conversations"
          value={inboxSearch.value}
          onInput={(e) => (inboxSearch.value = e.currentTarget.value)}
        />
        <select aria-label="Inbox view" value={choices.view} onChange={(e) => (inboxChoices.value = { ...choices, view: e.currentTarget.value as InboxView })}>
          {VIEWS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </div>
      {folders.length === 0 && <p class="status">{all.length === 0 ? "You have no unread messages." : "No unread conversations match your filters."}</p>}
      {folders.map((folder) => (
        <Folder key={folder.key} folder={folder} />
      ))}
    </div>
  );
}
