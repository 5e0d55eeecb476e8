import { useState } from "preact/hooks";
import { EMPTY_TOPIC_DISPLAY_NAME } from "../../../src/contract/constants.js";
import { myUserId } from "../api.js";
import { deleteDraft, restoreDraft } from "../composeDrafts.js";
import { type Draft, drafts, type ScheduledMessage, scheduledMessages } from "../composeData.js";
import { deleteScheduled, editScheduled, reschedule, sendScheduledNow } from "../composeScheduled.js";
import { narrowHash, type Term } from "../hash.js";
import { closeOverlay } from "../overlay.js";
import { lookup, subscriptions, userName } from "../state.js";
import { formatScheduledTime, localDateTimeValue, parseLocalDateTime } from "../sendLater.js";
import "./settings.css";
import "./composeTools.css";

/**
 * The #drafts and #scheduled overlays (their own chunk): the user's drafts with their destination,
 * to restore or delete; scheduled messages to edit, reschedule, send now or delete. Both lists
 * are composeData.ts's signals, kept live by events.
 */
function channelTerms(channelId: number, topic: string): Term[] {
  return [
    { operator: "channel", operand: String(channelId), negated: false },
    { operator: "topic", operand: topic, negated: false },
  ];
}

function dmTerms(ids: number[]): Term[] {
  return [{ operator: "dm", operand: (ids.length > 0 ? ids : [myUserId]).join(","), negated: false }];
}

function channelName(id: number): string {
  return subscriptions.value.get(id)?.name ?? "unknown channel";
}

function Frame({ title, name, children }: { title: string; name: string; children: preact.ComponentChildren }) {
  return (
    <div class="settings-overlay" role="dialog" aria-label={title}>
      <div class={`settings compose-overlay ${name}`}>
        <header>
          <h1>{title}</h1>
          <button type="button" class="close" aria-label="Close" onClick={() => closeOverlay()}>
            ✕
          </button>
        </header>
        <section class="settings-section">{children}</section>
      </div>
    </div>
  );
}

function draftDestination(d: Draft): { label: string; hash: string | null } {
  if (d.type === "stream")
    return { label: `#${channelName(d.to[0]!)} › ${d.topic || EMPTY_TOPIC_DISPLAY_NAME}`, hash: narrowHash(channelTerms(d.to[0]!, d.topic), lookup) };
  if (d.type === "private") return { label: `To: ${(d.to.length > 0 ? d.to : [myUserId]).map(userName).join(", ")}`, hash: narrowHash(dmTerms(d.to), lookup) };
  return { label: "No destination", hash: null };
}

function when(seconds: number): string {
  return new Date(seconds * 1000).toLocaleString(undefined, { month: "short", day: "numeric", hour: "numeric", minute: "2-digit" });
}

export function Drafts() {
  const [error, setError] = useState("");
  const list = drafts.value;
  return (
    <Frame title="Drafts" name="drafts">
      <p class="hint">Messages you started and did not send.</p>
      {list.length === 0 && <p class="status">No drafts.</p>}
      <ul class="compose-list">
        {list.map((d) => {
          const { label, hash } = draftDestination(d);
          return (
            <li key={d.id} class="draft" data-draft-id={d.id}>
              <div class="row-head">
                <span class="to">{label}</span>
                <span class="when">{when(d.timestamp)}</span>
              </div>
              <div class="text">{d.content}</div>
              <div class="row-actions">
                <button
                  type="button"
                  class="restore"
                  onClick={() => {
                    restoreDraft(d);
                    if (hash) location.hash = hash;
                    else closeOverlay();
                    setTimeout(() => document.querySelector<HTMLTextAreaElement>(".compose textarea")?.focus(), 0);
                  }}
                >
                  Restore
                </button>
                <button type="button" class="delete" onClick={() => void deleteDraft(d).catch((e) => setError((e as Error).message))}>
                  Delete
                </button>
              </div>
            </li>
          );
        })}
      </ul>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </Frame>
  );
}

function scheduledDestination(m: ScheduledMessage): { label: string; hash: string } {
  if (m.type === "stream") {
    const id = m.to as number;
    return { label: `#${channelName(id)} › ${m.topic || EMPTY_TOPIC_DISPLAY_NAME}`, hash: narrowHash(channelTerms(id, m.topic ?? ""), lookup) };
  }
  const ids = m.to as number[];
  return { label: `To: ${ids.map(userName).join(", ")}`, hash: narrowHash(dmTerms(ids), lookup) };
}

function ScheduledRow({ m, onError }: { m: ScheduledMessage; onError: (message: string) => void }) {
  const [rescheduling, setRescheduling] = useState<string | null>(null);
  const { label, hash } = scheduledDestination(m);
  const run = (action: () => Promise<unknown>) => void action().catch((e) => onError((e as Error).message));
  return (
    <li class={`scheduled ${m.failed ? "failed" : ""}`} data-scheduled-id={m.scheduled_message_id}>
      <div class="row-head">
        <span class="to">{label}</span>
        <span class="when">{formatScheduledTime(m.scheduled_delivery_timestamp)}</span>
      </div>
      {m.failed && <div class="error">Could not be sent at its time: edit or reschedule it.</div>}
      <div class="text content rendered_markdown" dangerouslySetInnerHTML={{ __html: m.rendered_content }} />
      <div class="row-actions">
        <button
          type="button"
          class="edit"
          onClick={() => {
            editScheduled(m);
            location.hash = hash;
            setTimeout(() => document.querySelector<HTMLTextAreaElement>(".compose textarea")?.focus(), 0);
          }}
        >
          Edit
        </button>
        <button
          type="button"
          class="reschedule"
          onClick={() => setRescheduling(rescheduling === null ? localDateTimeValue(m.scheduled_delivery_timestamp) : null)}
        >
          Reschedule
        </button>
        <button type="button" class="send-now" onClick={() => run(() => sendScheduledNow(m))}>
          Send now
        </button>
        <button type="button" class="delete" onClick={() => run(() => deleteScheduled(m))}>
          Delete
        </button>
      </div>
      {rescheduling !== null && (
        <form
          class="reschedule-form"
          onSubmit={(e) => {
            e.preventDefault();
            const at = parseLocalDateTime(rescheduling);
            if (at === null) return onError("Choose a date and time.");
            run(() => reschedule(m, at).then(() => setRescheduling(null)));
          }}
        >
          <input
            class="text-field"
            type="datetime-local"
            step={1}
            aria-label="New time"
            value={rescheduling}
            onInput={(e) => setRescheduling(e.currentTarget.value)}
          />
          <button type="submit">Save time</button>
        </form>
      )}
    </li>
  );
}

export function Scheduled() {
  const [error, setError] = useState("");
  const list = scheduledMessages.value;
  return (
    <Frame title="Scheduled messages" name="scheduled">
      {list.length === 0 && <p class="status">No scheduled messages. Use the ▾ next to Send to schedule one.</p>}
      <ul class="compose-list">
        {list.map((m) => (
          <ScheduledRow key={m.scheduled_message_id} m={m} onError={setError} />
        ))}
      </ul>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </Frame>
  );
}
