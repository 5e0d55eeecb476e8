import { useState } from "preact/hooks";
import { api, myUserId } from "../api.js";
import { channelDirectory, type GroupSetting } from "../channels.js";
import { creatablePrivacies, PRIVACY_LABELS, PRIVACY_PARAMS, type Privacy } from "../channelRules.js";
import { subscriptions, userGroups, userName } from "../state.js";
import { channelHash, channelNotice } from "./channelShared.js";
import { GroupSettingField, PeoplePicker, Pills } from "./GroupSettingField.js";

/**
 * Creating a channel (#channels/new): POST /users/me/subscriptions with the new name, its
 * privacy, permissions and first subscribers, as Zulip's stream_create. Offers only the kinds
 * of channel the organization lets the user create; the server's refusal is shown under the form.
 */
export function ChannelCreate() {
  const kinds = creatablePrivacies();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [privacy, setPrivacy] = useState<Privacy | null>(null);
  const [announce, setAnnounce] = useState(true);
  const [subscribers, setSubscribers] = useState<number[]>([myUserId]);
  const [canSend, setCanSend] = useState<GroupSetting | undefined>(undefined);
  const [canAdminister, setCanAdminister] = useState<GroupSetting>({ direct_members: [myUserId], direct_subgroups: [] });
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const chosen = privacy ?? kinds.find((k) => k === "public") ?? kinds[0] ?? "public";
  const everyone = [...userGroups.value.values()].find((g) => g.name === "role:everyone")?.id;
  if (kinds.length === 0) return <p class="hint">Your organization does not let you create channels.</p>;

  const submit = async (e: Event) => {
    e.preventDefault();
    setError("");
    const trimmed = name.trim();
    if (!trimmed) return setError("Choose a name for the new channel.");
    const taken = [...(channelDirectory.value?.values() ?? []), ...subscriptions.value.values()].some((c) => c.name.toLowerCase() === trimmed.toLowerCase());
    if (taken) return setError("A channel with this name already exists.");
    setBusy(true);
    try {
      await api.post("/users/me/subscriptions", {
        subscriptions: [{ name: trimmed, description }],
        principals: subscribers,
        ...PRIVACY_PARAMS[chosen],
        announce: announce && !PRIVACY_PARAMS[chosen].invite_only,
        can_send_message_group: canSend ?? everyone,
        can_administer_channel_group: canAdminister,
      });
      const { stream_id } = await api.get<{ stream_id: number }>("/get_stream_id", { stream: trimmed });
      channelNotice.value = { text: `Created #${trimmed}`, error: false };
      location.hash = channelHash({ stream_id, name: trimmed });
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="channel-create" onSubmit={(e) => void submit(e)}>
      <h2>Create a channel</h2>
      <label class="field">
        <span>Channel name</span>
        <input name="name" maxLength={60} value={name} onInput={(e) => (setName(e.currentTarget.value), setError(""))} />
      </label>
      <label class="field wide">
        <span>Description</span>
        <textarea name="description" rows={2} maxLength={1024} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </label>
      <fieldset class="privacy-choice">
        <legend>Who can access the channel?</legend>
        {PRIVACY_LABELS.filter(([kind]) => kinds.includes(kind)).map(([kind, label, hint]) => (
          <label class="check radio" key={kind}>
            <input type="radio" name="privacy" value={kind} checked={chosen === kind} onChange={() => setPrivacy(kind)} />
            <span>
              {label}
              <small class="hint">{hint}</small>
            </span>
          </label>
        ))}
      </fieldset>
      {!PRIVACY_PARAMS[chosen].invite_only && (
        <label class="check">
          <input type="checkbox" name="announce" checked={announce} onChange={(e) => setAnnounce(e.currentTarget.checked)} />
          Announce the new channel
        </label>
      )}
      <fieldset>
        <legend>Permissions</legend>
        <GroupSettingField
          name="can_send_message_group"
          label="Who can post to this channel"
          value={canSend ?? everyone}
          disabled={false}
          onChange={setCanSend}
        />
        <GroupSettingField
          name="can_administer_channel_group"
          label="Who can administer this channel"
          value={canAdminister}
          disabled={false}
          onChange={setCanAdminister}
        />
      </fieldset>
      <fieldset class="initial-subscribers">
        <legend>Subscribers</legend>
        <Pills
          items={subscribers.map((id) => ({ key: String(id), text: id === myUserId ? `${userName(id)} (you)` : userName(id) }))}
          onRemove={(key) => setSubscribers(subscribers.filter((id) => id !== Number(key)))}
        />
        <PeoplePicker label="Add subscribers" exclude={new Set(subscribers)} onPick={(id) => setSubscribers([...subscribers, id])} />
      </fieldset>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <div class="row">
        <button type="submit" disabled={busy}>
          Create
        </button>
        <a class="cancel" href="#channels/subscribed">
          Cancel
        </a>
      </div>
    </form>
  );
}
