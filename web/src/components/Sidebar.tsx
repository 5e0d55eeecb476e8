import "./Sidebar.css";
import { EMPTY_TOPIC_DISPLAY_NAME, VisibilityPolicy } from "../../../src/contract/constants.js";
import { ownKeys } from "./Menu.js";
import { channelTopics, lookup, recentDms, route, settings, subscriptions, topicKey, userName, userTopics } from "../state.js";
import { sidebarUnread, unreadIn, unreadMentions } from "../unreadCounts.js";
import { isResolved } from "../permissions.js";
import { channelSlug, narrowHash } from "../hash.js";
import type { Subscription } from "../state.js";
import { homeKind } from "../home.js";
import { starredIds } from "../starred.js";
import { type ConversationFacts, isMutedConversation } from "../conversationFilters.js";
import { conversationFacts } from "../viewFilters.js";
import { ChannelMenu, DmMenu, HomeMenu, TopicMenu } from "./conversationMenus.js";
import { isVisitor } from "../visitor.js";

/**
 * The left sidebar: views, channels (the open one with its topics), direct messages; live unread
 * counts. A visitor's has the views a visitor may open and the web-public channels, without menus.
 */
export function Sidebar({ onNavigate }: { onNavigate: () => void }) {
  const r = route.value;
  const terms = r.kind === "narrow" ? r.terms : [];
  const openChannel = terms.find((t) => t.operator === "channel" && !t.negated)?.operand;
  const openTopic = terms.find((t) => t.operator === "topic")?.operand;
  const openDm = terms.find((t) => t.operator === "dm")?.operand;
  const facts = conversationFacts();
  const { total, byChannel, byDm } = sidebarUnread.value;
  const channels = [...subscriptions.value.values()].sort((a, b) => Number(b.pin_to_top) - Number(a.pin_to_top) || a.name.localeCompare(b.name));
  // Conversations with muted users only are left out, as in Zulip's list.
  const dms = [...new Set([...byDm.keys(), ...recentDms.value])].filter(
    (key) => !isMutedConversation({ kind: "dm", userIds: key.split(",").map(Number) }, facts),
  );
  const allViews: Array<[string, string, number, boolean]> = [
    ["Inbox", "#inbox", total, r.kind === "inbox" || (r.kind === "home" && homeKind() === "inbox")],
    ["Recent conversations", "#recent", 0, r.kind === "recent" || (r.kind === "home" && homeKind() === "recent")],
    ["Combined feed", "#feed", total, r.kind === "feed" || (r.kind === "home" && homeKind() === "feed")],
    ["Mentions", "#narrow/is/mentioned", unreadMentions.value, terms.some((t) => t.operator === "is" && t.operand === "mentioned")],
    [
      "Starred messages",
      "#narrow/is/starred",
      settings.value.starred_message_counts ? starredIds.value.size : 0,
      terms.some((t) => t.operator === "is" && t.operand === "starred"),
    ],
  ];
  const views = isVisitor ? allViews.filter(([, href]) => href === "#recent" || href === "#feed") : allViews;
  return (
    // eslint-disable-next-line jsx-a11y-x/no-noninteractive-element-interactions -- delegation: the keys and clicks are the links' inside (ownKeys; a followed link closes the phone sidebar)
    <nav class="sidebar" aria-label="Navigation" onKeyDown={ownKeys} onClick={(e) => (e.target as HTMLElement).closest("a") && onNavigate()}>
      <ul class="views">
        {views.map(([label, href, count, active]) => (
          <li key={href} class={active ? "active" : ""}>
            <a href={href}>
              <span class="name">{label}</span>
              {count > 0 && <span class="count">{count}</span>}
            </a>
            {!isVisitor && (href === "#inbox" || href === "#feed") && <HomeMenu name={label} />}
          </li>
        ))}
      </ul>
      {!isVisitor && <h2>Direct messages</h2>}
      {!isVisitor && (
        <ul class="dms">
          {dms.length === 0 && <li class="empty">No direct messages yet</li>}
          {dms.slice(0, 15).map((key) => {
            const ids = key.split(",").map(Number);
            const count = byDm.get(key) ?? 0;
            return (
              <li key={key} class={openDm === key ? "active" : ""}>
                <a href={narrowHash([{ operator: "dm", operand: key, negated: false }], lookup)} data-dm={key}>
                  <span class="name">{ids.map(userName).join(", ")}</span>
                  {count > 0 && <span class="count">{count}</span>}
                </a>
                <DmMenu userIds={ids} name={ids.map(userName).join(", ")} />
              </li>
            );
          })}
        </ul>
      )}
      <h2 class="channels-heading">
        Channels
        {!isVisitor && (
          <a class="add-channel" href="#channels/new" title="Create a channel" aria-label="Create a channel">
            +
          </a>
        )}
      </h2>
      <ul class="channels">
        {channels.map((sub) => (
          <ChannelItem
            key={sub.stream_id}
            sub={sub}
            count={byChannel.get(sub.stream_id) ?? 0}
            open={openChannel === String(sub.stream_id)}
            openTopic={openTopic}
            facts={facts}
          />
        ))}
      </ul>
      {!isVisitor && (
        <a class="browse-channels" href="#channels/all">
          Browse channels
        </a>
      )}
    </nav>
  );
}

function ChannelItem({
  sub,
  count,
  open,
  openTopic,
  facts,
}: {
  sub: Subscription;
  count: number;
  open: boolean;
  openTopic: string | undefined;
  facts: ConversationFacts;
}) {
  const topics = open ? (channelTopics.value.get(sub.stream_id) ?? []) : [];
  const base = `#narrow/channel/${channelSlug(sub.stream_id, sub.name)}`;
  return (
    <li class={`${open && openTopic === undefined ? "active" : ""} ${sub.is_muted ? "muted" : ""}`} data-channel-id={sub.stream_id}>
      <a href={base}>
        <span class="swatch" style={{ background: sub.color }} />
        <span class="name">{sub.name}</span>
        {count > 0 && <span class="count">{count}</span>}
      </a>
      {!isVisitor && <ChannelMenu channelId={sub.stream_id} name={sub.name} />}
      {open && topics.length > 0 && (
        <ul class="topics">
          {topics.slice(0, 12).map((topic) => {
            const n = unreadIn({ kind: "channel", channelId: sub.stream_id, topic: topic.name });
            const muted = isMutedConversation({ kind: "channel", channelId: sub.stream_id, topic: topic.name }, facts);
            const resolved = isResolved(topic.name);
            const followed = userTopics.value.get(topicKey(sub.stream_id, topic.name)) === VisibilityPolicy.FOLLOWED;
            const active = openTopic?.toLowerCase() === topic.name.toLowerCase();
            return (
              <li
                key={topic.name}
                class={`${active ? "active" : ""} ${resolved ? "resolved" : ""} ${followed ? "followed" : ""} ${muted ? "muted" : ""}`}
                data-topic={topic.name}
              >
                <a
                  href={narrowHash(
                    [
                      { operator: "channel", operand: String(sub.stream_id), negated: false },
                      { operator: "topic", operand: topic.name, negated: false },
                    ],
                    lookup,
                  )}
                >
                  {resolved && (
                    <span class="resolved-mark" title="Resolved">
                      ✔
                    </span>
                  )}
                  <span class="name">{resolved ? topic.name.replace(/^(✔ ?)+/u, "") : topic.name === "" ? <i>{EMPTY_TOPIC_DISPLAY_NAME}</i> : topic.name}</span>
                  {followed && (
                    <span class="followed-mark" title="Followed">
                      ◉
                    </span>
                  )}
                  {n > 0 && <span class="count">{n}</span>}
                </a>
                {!isVisitor && <TopicMenu channelId={sub.stream_id} topic={topic.name} latest={() => ({ id: topic.max_id, timestamp: Date.now() / 1000 })} />}
              </li>
            );
          })}
        </ul>
      )}
    </li>
  );
}
