import { useEffect, useState } from "preact/hooks";
import { api, myUserId } from "../api.js";
import { channelDirectory, channelSubscribers, loadSubscribers, noteArchived, type Channel, type FullSubscription, type GroupSetting } from "../channels.js";
import {
  amOwner,
  canAddSubscribers,
  canAdminister,
  canRemoveSubscribers,
  canSubscribe,
  isSubscribed,
  PRIVACY_LABELS,
  PRIVACY_PARAMS,
  privacyOf,
  type Privacy,
} from "../channelRules.js";
import { realm, subscriptions, userName } from "../state.js";
import { attempt, channelById, channelHash } from "./channelShared.js";
import { ChannelPersonal } from "./ChannelPersonal.js";
import { PrivacyIcon } from "./ChannelIcons.js";
import { GroupSettingField, PeoplePicker } from "./GroupSettingField.js";

/**
 * One channel's settings (#channels/<id>/<slug>/<tab>): general (name, description, privacy,
 * retention, archiving), the user's personal settings, subscribers and permissions. Those who may
 * administer the channel change them (PATCH /json/streams/{id}, DELETE to archive); others see the
 * same page read-only.
 */
const TABS: Array<[string, string]> = [
  ["general", "General"],
  ["personal", "Personal"],
  ["subscribers", "Subscribers"],
  ["permissions", "Permissions"],
];

export function ChannelSettings({ channelId, tab }: { channelId: number; tab: string }) {
  const channel = channelById(channelId);
  if (!channel) return <p class="hint">{channelDirectory.value === null ? "Loading…" : "This channel does not exist, or you cannot see it."}</p>;
  const subscribed = isSubscribed(channelId);
  const tabs = TABS.filter(([key]) => key !== "personal" || subscribed);
  const current = tabs.some(([key]) => key === tab) ? tab : "general";
  const editable = canAdminister(channel) && !channel.is_archived;
  return (
    <div class="channel-settings" data-channel-id={channelId} data-editable={String(editable)}>
      <div class="channel-title">
        <h2>
          <span class="privacy">
            <PrivacyIcon channel={channel} />
          </span>{" "}
          {channel.name}
          {channel.is_archived && <span class="archived-tag">archived</span>}
        </h2>
        {(subscribed || canSubscribe(channel)) && (
          <button
            type="button"
            class={`subscribe ${subscribed ? "subscribed" : ""}`}
            onClick={() =>
              void attempt(
                () =>
                  subscribed
                    ? api.del("/users/me/subscriptions", { subscriptions: [channel.name] })
                    : api.post("/users/me/subscriptions", { subscriptions: [{ name: channel.name }] }),
                subscribed ? `Unsubscribed from #${channel.name}` : `Subscribed to #${channel.name}`,
              )
            }
          >
            {subscribed ? "Unsubscribe" : "Subscribe"}
          </button>
        )}
      </div>
      <div class="channel-tabs" role="tablist" aria-label="Channel settings">
        {tabs.map(([key, label]) => (
          <a key={key} href={channelHash(channel, key)} class={key === current ? "current" : ""}>
            {label}
          </a>
        ))}
      </div>
      {!editable && !channel.is_archived && (current === "general" || current === "permissions") && (
        <p class="hint read-only">Only channel administrators can change these settings.</p>
      )}
      {current === "general" && <General key={channelId} channel={channel} editable={editable} />}
      {current === "personal" && <ChannelPersonal sub={subscriptions.value.get(channelId) as FullSubscription} />}
      {current === "subscribers" && <Subscribers channel={channel} />}
      {current === "permissions" && <Permissions channel={channel} editable={editable} />}
    </div>
  );
}

const patch = (channel: Channel, params: Record<string, unknown>) => api.patch(`/streams/${channel.stream_id}`, params as Record<string, string>);

function retentionText(days: number | null): string {
  if (days === null) return "Organization default";
  if (days === -1) return "Forever";
  return `${days} days`;
}

function General({ channel, editable }: { channel: Channel; editable: boolean }) {
  const [name, setName] = useState(channel.name);
  const [description, setDescription] = useState(channel.description);
  const [privacy, setPrivacy] = useState<Privacy>(privacyOf(channel));
  const [retention, setRetention] = useState(channel.message_retention_days === null ? "" : String(channel.message_retention_days));
  const [confirming, setConfirming] = useState(false);
  // A change from elsewhere (an event) shows at once.
  useEffect(() => setName(channel.name), [channel.name]);
  useEffect(() => setDescription(channel.description), [channel.description]);
  const { invite_only, is_web_public, history_public_to_subscribers } = channel;
  useEffect(
    () => setPrivacy(privacyOf({ invite_only, is_web_public, history_public_to_subscribers })),
    [invite_only, is_web_public, history_public_to_subscribers],
  );
  const webPublicAllowed = !!realm.value.realm_enable_spectator_access;
  const count = channelSubscribers.value.get(channel.stream_id)?.length;
  const saveNameAndDescription = (e: Event) => {
    e.preventDefault();
    const params: Record<string, unknown> = {};
    if (name.trim() !== channel.name) params.new_name = name.trim();
    if (description !== channel.description) params.description = description;
    if (Object.keys(params).length > 0) void attempt(() => patch(channel, params));
  };
  return (
    <div class="channel-general">
      {editable ? (
        <form class="channel-details" onSubmit={saveNameAndDescription}>
          <label class="field">
            <span>Channel name</span>
            <input name="new_name" maxLength={60} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <label class="field wide">
            <span>Description</span>
            <textarea name="description" rows={2} maxLength={1024} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
          </label>
          <button type="submit" disabled={name.trim() === channel.name && description === channel.description}>
            Save changes
          </button>
        </form>
      ) : (
        <dl class="channel-facts">
          <dt>Description</dt>
          <dd class="description">{channel.description || <i>No description.</i>}</dd>
        </dl>
      )}
      <fieldset class="privacy-choice">
        <legend>Who can access the channel?</legend>
        {PRIVACY_LABELS.filter(([kind]) => kind !== "web-public" || webPublicAllowed || privacyOf(channel) === "web-public").map(([kind, label, hint]) => (
          <label class="check radio" key={kind}>
            <input type="radio" name="privacy" value={kind} checked={privacy === kind} disabled={!editable} onChange={() => setPrivacy(kind)} />
            <span>
              {label}
              <small class="hint">{hint}</small>
            </span>
          </label>
        ))}
        {editable && privacy !== privacyOf(channel) && (
          <button
            type="button"
            class="save-privacy"
            onClick={() => {
              const { invite_only, ...rest } = PRIVACY_PARAMS[privacy];
              void attempt(() => patch(channel, { is_private: invite_only, ...rest }));
            }}
          >
            Save privacy
          </button>
        )}
      </fieldset>
      <fieldset>
        <legend>Message retention</legend>
        {editable && amOwner() ? (
          <div class="row">
            <label class="field">
              <span>Keep messages for (days; empty: organization default, -1: forever)</span>
              <input name="message_retention_days" inputMode="numeric" value={retention} onInput={(e) => setRetention(e.currentTarget.value)} />
            </label>
            <button
              type="button"
              onClick={() => {
                const raw = retention.trim();
                const value = raw === "" ? "realm_default" : raw === "-1" ? "unlimited" : Number(raw);
                void attempt(() => patch(channel, { message_retention_days: value }));
              }}
            >
              Save retention
            </button>
          </div>
        ) : (
          <p class="retention">{retentionText(channel.message_retention_days)}</p>
        )}
      </fieldset>
      <p class="hint channel-stats">
        {count !== undefined && `${count} subscriber${count === 1 ? "" : "s"}. `}
        {channel.date_created && `Created ${new Date(channel.date_created * 1000).toLocaleDateString()}`}
        {channel.creator_id ? ` by ${userName(channel.creator_id)}.` : channel.date_created ? "." : ""}
      </p>
      {canAdminister(channel) && (
        <div class="archive-zone">
          {channel.is_archived ? (
            <button type="button" class="unarchive" onClick={() => void attempt(() => patch(channel, { is_archived: false }), `Unarchived #${channel.name}`)}>
              Unarchive channel
            </button>
          ) : confirming ? (
            <div class="confirm" role="alertdialog" aria-label="Archive channel">
              <p>
                Archive <b>#{channel.name}</b>? It disappears from everyone's channel list; its messages stay searchable by those with access.
              </p>
              <button
                type="button"
                class="danger confirm-archive"
                onClick={() =>
                  void attempt(async () => {
                    await api.del(`/streams/${channel.stream_id}`);
                    setConfirming(false);
                    noteArchived(channel);
                  }, `Archived #${channel.name}`)
                }
              >
                Archive
              </button>
              <button type="button" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </div>
          ) : (
            <button type="button" class="danger archive" onClick={() => setConfirming(true)}>
              Archive channel
            </button>
          )}
        </div>
      )}
    </div>
  );
}

function Subscribers({ channel }: { channel: Channel }) {
  useEffect(() => void loadSubscribers(channel.stream_id).catch(() => {}), [channel.stream_id]);
  const ids = channelSubscribers.value.get(channel.stream_id);
  if (!ids) return <p class="hint">Loading…</p>;
  const mayRemove = canRemoveSubscribers(channel);
  const sorted = [...ids].sort((a, b) => userName(a).localeCompare(userName(b)));
  return (
    <div class="channel-subscribers">
      {canAddSubscribers(channel) && (
        <PeoplePicker
          label="Add subscribers"
          exclude={new Set(ids)}
          onPick={(id) =>
            void attempt(() => api.post("/users/me/subscriptions", { subscriptions: [{ name: channel.name }], principals: [id] }), `Subscribed ${userName(id)}`)
          }
        />
      )}
      <p class="hint">
        {ids.length} subscriber{ids.length === 1 ? "" : "s"}
      </p>
      <ul class="subscriber-list">
        {sorted.map((id) => (
          <li key={id} data-user-id={id}>
            <span class="name">{userName(id)}</span>
            {(mayRemove || id === myUserId) && !channel.is_archived && (
              <button
                type="button"
                onClick={() =>
                  void attempt(() => api.del("/users/me/subscriptions", { subscriptions: [channel.name], principals: [id] }), `Unsubscribed ${userName(id)}`)
                }
              >
                Unsubscribe
              </button>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

const PERMISSIONS: Array<[keyof Channel, string]> = [
  ["can_send_message_group", "Who can post to this channel"],
  ["can_administer_channel_group", "Who can administer this channel"],
  ["can_subscribe_group", "Who can subscribe to this channel"],
  ["can_add_subscribers_group", "Who can subscribe others to this channel"],
  ["can_remove_subscribers_group", "Who can unsubscribe others from this channel"],
];

function Permissions({ channel, editable }: { channel: Channel; editable: boolean }) {
  // A custom group with nobody in it yet stays here until someone is added.
  const [pending, setPending] = useState<Record<string, GroupSetting>>({});
  return (
    <fieldset class="channel-permissions">
      <legend>Permissions</legend>
      {PERMISSIONS.map(([setting, label]) => (
        <GroupSettingField
          key={setting}
          name={setting}
          label={label}
          value={pending[setting] ?? (channel[setting] as GroupSetting | undefined)}
          disabled={!editable}
          onChange={(value) => {
            const empty = typeof value === "object" && value.direct_members.length === 0 && value.direct_subgroups.length === 0;
            setPending(empty ? { ...pending, [setting]: value } : Object.fromEntries(Object.entries(pending).filter(([k]) => k !== setting)));
            if (!empty) void attempt(() => patch(channel, { [setting]: { new: value } }));
          }}
        />
      ))}
    </fieldset>
  );
}
