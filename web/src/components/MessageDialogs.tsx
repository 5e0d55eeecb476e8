import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api.js";
import { type Message, subscriptions, userName } from "../state.js";
import { rawContent } from "../actions.js";
import { openDialog } from "./ModalDialog.js";

/**
 * The message menu's dialogs, as Zulip's: edit history (GET /messages/{id}/history), read
 * receipts (GET /messages/{id}/read_receipts) and the message's Markdown source.
 */

/** Loads once when shown; the dialog says "Loading…" until then and shows the server's error if any. */
function useLoad<T>(load: () => Promise<T>): { data: T | null; error: string | null } {
  const [state, setState] = useState<{ data: T | null; error: string | null }>({ data: null, error: null });
  // Once: the first render's load (callers pass a new arrow each render).
  const loadOnce = useRef(load);
  useEffect(() => {
    loadOnce.current().then(
      (data) => setState({ data, error: null }),
      (error: Error) => setState({ data: null, error: error.message }),
    );
  }, []);
  return state;
}

function Loading({ error }: { error: string | null }) {
  return error ? (
    <p class="status error" role="alert">
      {error}
    </p>
  ) : (
    <p class="status">Loading…</p>
  );
}

const when = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

interface Snapshot {
  timestamp: number;
  user_id: number | null;
  topic: string;
  prev_topic?: string;
  rendered_content?: string | null;
  content_html_diff?: string;
  prev_rendered_content?: string | null;
  stream?: number;
  prev_stream?: number;
}

function channelName(id: number | undefined): string {
  return id === undefined ? "" : `#${subscriptions.value.get(id)?.name ?? "unknown channel"}`;
}

function EditHistory({ m }: { m: Message }) {
  const { data, error } = useLoad(() => api.get<{ message_history: Snapshot[] }>(`/messages/${m.id}/history`));
  if (!data) return <Loading error={error} />;
  return (
    <ol class="edit-history" aria-label="Versions, oldest first">
      {data.message_history.map((s, i) => {
        const who = s.user_id === null ? "Someone" : userName(s.user_id);
        const changes: string[] = [];
        if (i === 0) changes.push(`Posted by ${who}`);
        else {
          if (s.prev_rendered_content !== undefined) changes.push(`Edited by ${who}`);
          if (s.prev_topic !== undefined) changes.push(`Topic moved from “${s.prev_topic}” to “${s.topic}” by ${who}`);
          if (s.prev_stream !== undefined) changes.push(`Moved from ${channelName(s.prev_stream)} to ${channelName(s.stream)} by ${who}`);
          if (changes.length === 0) changes.push(`Changed by ${who}`);
        }
        const html = i > 0 && s.prev_rendered_content !== undefined ? (s.content_html_diff ?? s.rendered_content) : i === 0 ? s.rendered_content : null;
        return (
          <li key={i}>
            <div class="what">
              <time dateTime={new Date(s.timestamp * 1000).toISOString()}>{when.format(new Date(s.timestamp * 1000))}</time> · {changes.join("; ")}
            </div>
            {html && <div class="rendered_markdown" dangerouslySetInnerHTML={{ __html: html }} />}
          </li>
        );
      })}
    </ol>
  );
}

function ReadReceipts({ m }: { m: Message }) {
  const { data, error } = useLoad(() => api.get<{ user_ids: number[] }>(`/messages/${m.id}/read_receipts`));
  if (!data) return <Loading error={error} />;
  const names = data.user_ids.map(userName).sort((a, b) => a.localeCompare(b));
  return (
    <div class="read-receipts">
      {names.length === 0 ? (
        <p>No one has read this message yet.</p>
      ) : (
        <>
          <p>
            This message has been read by {names.length} {names.length === 1 ? "person" : "people"}:
          </p>
          <ul>
            {names.map((name) => (
              <li key={name}>{name}</li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

function Source({ m }: { m: Message }) {
  const { data, error } = useLoad(() => rawContent(m.id));
  if (data === null) return <Loading error={error} />;
  return <textarea class="message-source" aria-label="Message source" readOnly value={data} rows={Math.min(16, data.split("\n").length + 1)} />;
}

export function showEditHistory(m: Message): void {
  openDialog("Message edit history", () => <EditHistory m={m} />, "edit-history-dialog");
}

export function showReadReceipts(m: Message): void {
  openDialog("Read receipts", () => <ReadReceipts m={m} />, "read-receipts-dialog");
}

export function showSource(m: Message): void {
  openDialog("Message source", () => <Source m={m} />, "source-dialog");
}
