import "./RecipientBar.css";
import { EMPTY_TOPIC_DISPLAY_NAME, VisibilityPolicy } from "../../../src/contract/constants.js";
import { ownKeys } from "./Menu.js";
import { lookup, type Message, subscriptions, topicKey, userName, userTopics } from "../state.js";
import { canRenameTopic, canResolve, canMoveChannel, isResolved } from "../permissions.js";
import { openTopicDialog, setFollowed, toggleResolved } from "../topicEdit.js";
import { myUserId } from "../api.js";
import { isVisitor } from "../visitor.js";
import { narrowHash } from "../hash.js";
import { topicHighlight } from "../messages.js";
import { dmPeople } from "../unread.js";
import { DmMenu, TopicMenu } from "./conversationMenus.js";

/** Which conversation a message is in: a new recipient bar starts where this changes. */
export function recipientKey(m: Message): string {
  return m.type === "stream"
    ? `c:${m.stream_id}:${m.subject.toLowerCase()}`
    : `dm:${dmPeople(Array.isArray(m.display_recipient) ? m.display_recipient.map((r) => r.id) : [], myUserId).join(",")}`;
}

/** The bar above a conversation's messages: channel and topic, or the people of a DM. */
export function RecipientBar({ m }: { m: Message }) {
  if (m.type === "stream") {
    const sub = subscriptions.value.get(m.stream_id!);
    const name = sub?.name ?? (typeof m.display_recipient === "string" ? m.display_recipient : "");
    const channelTerm = { operator: "channel", operand: String(m.stream_id), negated: false };
    return (
      <div class="recipient-bar" role="presentation" onKeyDown={ownKeys} style={{ borderColor: sub?.color ?? "#999" }}>
        <a class="channel" href={narrowHash([channelTerm], lookup)}>
          #{name}
        </a>
        <span class="sep">›</span>
        <a class="topic" href={narrowHash([channelTerm, { operator: "topic", operand: m.subject, negated: false }], lookup)}>
          {m.subject === "" ? <i>{EMPTY_TOPIC_DISPLAY_NAME}</i> : <TopicName m={m} />}
        </a>
        {/* Resolving, moving, following and the topic's menu need an account. */}
        {!isVisitor && <TopicButtons m={m} />}
        {!isVisitor && <TopicMenu channelId={m.stream_id!} topic={m.subject} latest={() => m} className="bar-menu" />}
      </div>
    );
  }
  const ids = dmPeople(Array.isArray(m.display_recipient) ? m.display_recipient.map((r) => r.id) : [], myUserId);
  return (
    <div class="recipient-bar dm" role="presentation" onKeyDown={ownKeys}>
      <a href={narrowHash([{ operator: "dm", operand: ids.join(","), negated: false }], lookup)}>You and {ids.map(userName).join(", ")}</a>
      <DmMenu userIds={ids} name={ids.map(userName).join(", ")} className="bar-menu" />
    </div>
  );
}

/** Resolve, move and follow, on a topic's recipient bar (what the organization allows). */
function TopicButtons({ m }: { m: Message }) {
  const resolved = isResolved(m.subject);
  const followed = userTopics.value.get(topicKey(m.stream_id!, m.subject)) === VisibilityPolicy.FOLLOWED;
  return (
    <span class="topic-buttons">
      {canResolve() && (
        <button
          type="button"
          class={`resolve ${resolved ? "on" : ""}`}
          title={resolved ? "Mark as unresolved" : "Mark as resolved"}
          aria-label={resolved ? "Mark as unresolved" : "Mark as resolved"}
          onClick={() => void toggleResolved(m)}
        >
          ✔
        </button>
      )}
      {(canRenameTopic(m.timestamp) || canMoveChannel(m.timestamp)) && (
        <button type="button" class="move-topic" title="Move topic" aria-label="Move topic" onClick={() => openTopicDialog(m, "change_all")}>
          ✎
        </button>
      )}
      <button
        type="button"
        class={`follow ${followed ? "on" : ""}`}
        title={followed ? "Unfollow topic" : "Follow topic"}
        aria-label="Follow topic"
        aria-pressed={followed}
        onClick={() => setFollowed(m.stream_id!, m.subject, !followed)}
      >
        ◉
      </button>
    </span>
  );
}

/** The topic's name; in a search, with the words it matched highlighted (the server's match_subject, escaped HTML). */
function TopicName({ m }: { m: Message }) {
  const highlighted = topicHighlight(m);
  return highlighted === null ? <>{m.subject}</> : <span dangerouslySetInnerHTML={{ __html: highlighted }} />;
}
