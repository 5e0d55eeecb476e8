import { useRef, useState } from "preact/hooks";
import { useModal } from "./modal.js";
import { canMoveChannel } from "../permissions.js";
import { subscriptions } from "../state.js";
import { moveMessages, type PropagateMode, topicDialog } from "../topicEdit.js";

const MODES: Array<[PropagateMode, string]> = [
  ["change_one", "Move only this message"],
  ["change_later", "Move this and all following messages in this topic"],
  ["change_all", "Move all messages in this topic"],
];

/** Zulip's "Move topic" / "Move message" dialog: new topic, another channel (when allowed), which messages, notices. */
export function TopicDialog() {
  const d = topicDialog.value;
  if (!d) return null;
  return <Dialog key={d.messageId + d.mode} />;
}

function Dialog() {
  const d = topicDialog.value!;
  const [topic, setTopic] = useState(d.topic);
  const [channelId, setChannelId] = useState(d.channelId);
  const [mode, setMode] = useState<PropagateMode>(d.mode);
  const [notifyOld, setNotifyOld] = useState(false);
  const [notifyNew, setNotifyNew] = useState(true);
  const [busy, setBusy] = useState(false);
  const movable = canMoveChannel(d.timestamp);
  const channels = [...subscriptions.value.values()].sort((a, b) => a.name.localeCompare(b.name));
  const close = () => (topicDialog.value = null);
  const dialog = useRef<HTMLDivElement>(null);
  // Focus starts in the topic field.
  useModal(dialog, close, (root) => root.querySelector<HTMLElement>("input[aria-label='New topic']"));
  return (
    // A click on the backdrop closes; from the keyboard, Esc does (useModal).
    <div class="dialog-backdrop" role="presentation" onClick={(e) => e.target === e.currentTarget && close()}>
      <div ref={dialog} role="dialog" aria-label={d.mode === "change_one" ? "Move message" : "Move topic"}>
        <form
          class="dialog topic-dialog"
          onSubmit={(e) => {
            e.preventDefault();
            void (async () => {
              setBusy(true);
              const ok = await moveMessages({ ...d, mode }, { channelId, topic: topic.trim(), notifyOld, notifyNew });
              setBusy(false);
              if (ok) close();
            })();
          }}
        >
          <h2>{d.mode === "change_one" ? "Move message" : "Move topic"}</h2>
          <label>
            Channel
            <select aria-label="New channel" value={channelId} disabled={!movable} onChange={(e) => setChannelId(Number(e.currentTarget.value))}>
              {channels.map((s) => (
                <option key={s.stream_id} value={s.stream_id}>
                  #{s.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Topic
            <input aria-label="New topic" value={topic} maxLength={60} onInput={(e) => setTopic(e.currentTarget.value)} />
          </label>
          <label>
            Which messages
            <select aria-label="Which messages" value={mode} onChange={(e) => setMode(e.currentTarget.value as PropagateMode)}>
              {MODES.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label class="check">
            <input type="checkbox" checked={notifyOld} onChange={(e) => setNotifyOld(e.currentTarget.checked)} /> Send automated notice to the old topic
          </label>
          <label class="check">
            <input type="checkbox" checked={notifyNew} onChange={(e) => setNotifyNew(e.currentTarget.checked)} /> Send automated notice to the new topic
          </label>
          <div class="buttons">
            <button type="button" onClick={close}>
              Cancel
            </button>
            <button type="submit" class="primary" disabled={busy}>
              Confirm
            </button>
          </div>
        </form>
      </div>
    </div>
  );
}
