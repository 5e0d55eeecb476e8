import { useEffect, useState } from "preact/hooks";
import { closeOverlay } from "../overlay.js";
import { api } from "../api.js";
import { channelDirectory, channelSubscribers, loadChannelDirectory, type Channel } from "../channels.js";
import { attempt, channelById, channelHash, channelNotice } from "./channelShared.js";
import { amAdmin, canSubscribe, isSubscribed } from "../channelRules.js";
import { PersonIcon, PrivacyIcon } from "./ChannelIcons.js";
import { route, subscriptions } from "../state.js";
import { ChannelCreate } from "./ChannelCreate.js";
import { ChannelSettings } from "./ChannelSettings.js";
import "./settings.css";
import "./Channels.css";

/**
 * Channel settings, at Zulip's hashes: #channels/subscribed, #channels/all, #channels/new and
 * #channels/<id>/<slug>/<general|personal|subscribers|permissions>. A chunk of its own. The list
 * on the left browses channels (join, leave); the pane on the right creates one or shows one's
 * settings. Changes go through Zulip's API; what is shown comes back through the events.
 */

export function Channels() {
  const r = route.value;
  const path = r.kind === "overlay" ? r.path : [];
  const [showArchived, setShowArchived] = useState(false);
  useEffect(() => {
    channelNotice.value = null;
    void loadChannelDirectory(showArchived).catch((e) => (channelNotice.value = { text: (e as Error).message, error: true }));
  }, [showArchived]);
  const first = path[0] ?? "subscribed";
  const channelId = /^\d+/.exec(first)?.[0];
  const listKind = first === "all" || first === "notsubscribed" ? "all" : "subscribed";
  const detail = first === "new" ? "new" : channelId ? "channel" : null;
  const notice = channelNotice.value;
  return (
    <div class="settings-overlay" role="dialog" aria-label="Channels">
      <div class={`settings channels-overlay ${detail ? "has-detail" : ""}`}>
        <header>
          <h1>Channels</h1>
          {notice && (
            <span class={`saved ${notice.error ? "error" : ""}`} role="status">
              {notice.text}
            </span>
          )}
          <button type="button" class="close" aria-label="Close" onClick={() => closeOverlay()}>
            ✕
          </button>
        </header>
        <ChannelList kind={listKind} showArchived={showArchived} setShowArchived={setShowArchived} selected={channelId ? Number(channelId) : null} />
        <section class="channel-detail">
          {detail && (
            <a class="back" href={`#channels/${listKind}`}>
              ← Back to channels
            </a>
          )}
          {detail === "new" && <ChannelCreate />}
          {detail === "channel" && <ChannelSettings channelId={Number(channelId)} tab={path[2] ?? "general"} />}
          {!detail && <p class="hint empty-detail">Select a channel to see its settings, or create a new one.</p>}
        </section>
      </div>
    </div>
  );
}

function ChannelList({
  kind,
  showArchived,
  setShowArchived,
  selected,
}: {
  kind: "subscribed" | "all";
  showArchived: boolean;
  setShowArchived: (value: boolean) => void;
  selected: number | null;
}) {
  const [query, setQuery] = useState("");
  const q = query.trim().toLowerCase();
  const all = kind === "subscribed" ? [...subscriptions.value.keys()] : [...(channelDirectory.value?.keys() ?? [])];
  const channels = all
    .map(channelById)
    .filter((c): c is Channel => !!c && c.name.toLowerCase().includes(q))
    .filter((c) => kind === "subscribed" || showArchived || !c.is_archived)
    .sort((a, b) => a.name.localeCompare(b.name));
  return (
    <div class="channel-list" role="navigation" aria-label="Channel list">
      <div class="list-tabs">
        <a href="#channels/subscribed" class={kind === "subscribed" ? "current" : ""}>
          Subscribed
        </a>
        <a href="#channels/all" class={kind === "all" ? "current" : ""}>
          All channels
        </a>
        <a href="#channels/new" class="create-channel" title="Create a channel">
          + New
        </a>
      </div>
      <div class="list-filters">
        <input type="search" placeholder="Filter channels" aria-label="Filter channels" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
        {kind === "all" && amAdmin() && (
          <label class="check">
            <input type="checkbox" name="show_archived" checked={showArchived} onChange={(e) => setShowArchived(e.currentTarget.checked)} />
            Show archived
          </label>
        )}
      </div>
      {kind === "all" && channelDirectory.value === null && <p class="hint">Loading…</p>}
      {channels.length === 0 && channelDirectory.value !== null && <p class="hint">No channels match.</p>}
      <ul class="channel-rows">
        {channels.map((c) => (
          <ChannelRow key={c.stream_id} channel={c} selected={c.stream_id === selected} />
        ))}
      </ul>
    </div>
  );
}

function ChannelRow({ channel, selected }: { channel: Channel; selected: boolean }) {
  const subscribed = isSubscribed(channel.stream_id);
  const count = channelSubscribers.value.get(channel.stream_id)?.length;
  const color = (subscriptions.value.get(channel.stream_id) as { color?: string } | undefined)?.color;
  const toggle = () =>
    void attempt(
      () =>
        subscribed
          ? api.del("/users/me/subscriptions", { subscriptions: [channel.name] })
          : api.post("/users/me/subscriptions", { subscriptions: [{ name: channel.name }] }),
      subscribed ? `Unsubscribed from #${channel.name}` : `Subscribed to #${channel.name}`,
    );
  return (
    <li class={`channel-row ${selected ? "current" : ""} ${channel.is_archived ? "archived" : ""}`} data-channel-id={channel.stream_id}>
      <a class="channel-link" href={channelHash(channel)}>
        <span class="privacy" style={color ? { color } : undefined}>
          <PrivacyIcon channel={channel} />
        </span>
        <span class="channel-text">
          <span class="channel-name">
            {channel.name}
            {channel.is_archived && <span class="archived-tag">archived</span>}
          </span>
          <span class="channel-description">{channel.description}</span>
        </span>
        {count !== undefined && (
          <span class="subscriber-count" title="Subscribers">
            <PersonIcon /> {count}
          </span>
        )}
      </a>
      {(subscribed || canSubscribe(channel)) && (
        <button type="button" class={`subscribe ${subscribed ? "subscribed" : ""}`} onClick={toggle}>
          {subscribed ? "Unsubscribe" : "Subscribe"}
        </button>
      )}
    </li>
  );
}
