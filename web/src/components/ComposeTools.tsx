import { signal } from "@preact/signals";
import type { RefObject } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { api } from "../api.js";
import { applyFormat, type Format } from "../composeFormat.js";
import { noteDraftChange } from "../composeDrafts.js";
import { drafts, scheduledMessages, snippets } from "../composeData.js";
import { content, editingScheduled } from "../composeState.js";
import { scheduleCompose } from "../composeScheduled.js";
import { formatScheduledTime, nextMondayAt9, parseLocalDateTime, localDateTimeValue, tomorrowAt9 } from "../sendLater.js";
import { showEmoji } from "../messageDecorations.js";
import { settings } from "../state.js";
import "./composeTools.css";

/**
 * The compose box's tools: formatting buttons (composeFormat.ts), the Markdown preview
 * (POST /messages/render), saved snippets (/saved_snippets) and the "Send later" menu.
 */
export const preview = signal<{ html: string | null; error?: string } | null>(null);
const snippetsOpen = signal(false);
const sendLaterOpen = signal(false);

/** An open popup closes on a click outside it (and outside its button) and on Esc. */
function useDismiss(open: boolean, close: () => void, selector: string): void {
  // The callers pass a new arrow each render: the listeners call the latest through a ref, so
  // they are added once per opening.
  const closeRef = useRef(close);
  closeRef.current = close;
  // A layout effect, so an Esc or click right after the popup appears reaches it (as useModal).
  useLayoutEffect(() => {
    if (!open) return;
    const onDown = (e: Event) => {
      if (!(e.target as Element).closest?.(selector)) closeRef.current();
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") closeRef.current();
    };
    document.addEventListener("mousedown", onDown);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("mousedown", onDown);
      document.removeEventListener("keydown", onKey);
    };
  }, [open, selector]);
}

/** Applies a format to the textarea's selection, keeping the edit undoable where the browser allows. */
export function formatCompose(el: HTMLTextAreaElement | null, format: Format): void {
  if (!el) return;
  const result = applyFormat(format, { text: el.value, start: el.selectionStart, end: el.selectionEnd });
  el.focus();
  el.value = result.text;
  content.value = result.text;
  el.setSelectionRange(result.start, result.end);
  noteDraftChange();
}

/** Inserts text at the cursor, on a line of its own when it has several. */
function insertAtCursor(el: HTMLTextAreaElement | null, text: string): void {
  const value = content.value;
  const start = el ? el.selectionStart : value.length;
  const end = el ? el.selectionEnd : value.length;
  const before = value.slice(0, start);
  const spaced = before === "" || /\s$/.test(before) ? text : `${text.includes("\n") ? "\n" : " "}${text}`;
  content.value = before + spaced + value.slice(end);
  if (el) {
    el.value = content.value;
    el.focus();
    el.selectionStart = el.selectionEnd = start + spaced.length;
  }
  noteDraftChange();
}

/** Small line icons (no emoji font needed). */
function Icon({ d }: { d: string }) {
  return (
    <svg
      viewBox="0 0 16 16"
      width="15"
      height="15"
      fill="none"
      stroke="currentColor"
      stroke-width="1.6"
      stroke-linecap="round"
      stroke-linejoin="round"
      aria-hidden="true"
    >
      <path d={d} />
    </svg>
  );
}
const LINK_ICON = "M6.5 9.5l3-3M7 4.5l1-1a2.5 2.5 0 0 1 3.5 3.5l-1 1M9 11.5l-1 1a2.5 2.5 0 0 1-3.5-3.5l1-1";
const POLL_ICON = "M3 13V8M8 13V3M13 13V6M1.5 13.5h13";
/** A numbered list: the digits 1, 2, 3 beside three lines (drawn, so the button's name is its words alone). */
const NUMBERED_ICON = "M6.5 3.5h8M6.5 8h8M6.5 12.5h8M2 2.5l1-.5v3M1.5 7h1.5l-1.5 2h1.5M1.5 11h1.5l-.8.8.8.7h-1.5";
const EYE_ICON = "M1.5 8s2.5-4.5 6.5-4.5S14.5 8 14.5 8s-2.5 4.5-6.5 4.5S1.5 8 1.5 8zM8 10a2 2 0 1 0 0-4 2 2 0 0 0 0 4z";
const PEN_ICON = "M10.5 2.5l3 3-8 8H2.5v-3z";

const BUTTONS: Array<[Format, string | preact.JSX.Element, string]> = [
  ["bold", "B", "Bold (Ctrl+B)"],
  ["italic", "I", "Italic (Ctrl+I)"],
  ["strikethrough", "S", "Strikethrough"],
  ["link", <Icon d={LINK_ICON} />, "Link (Ctrl+Shift+L)"],
  ["code", "</>", "Code"],
  ["quote", "❝", "Quote"],
  ["spoiler", "▸", "Spoiler"],
  ["math", "∑", "Math (LaTeX)"],
  ["poll", <Icon d={POLL_ICON} />, "Poll"],
  ["bulleted", "•≡", "Bulleted list"],
  ["numbered", <Icon d={NUMBERED_ICON} />, "Numbered list"],
];

async function togglePreview(): Promise<void> {
  if (preview.value) return void (preview.value = null);
  const text = content.value;
  preview.value = { html: null };
  if (text.trim() === "") return void (preview.value = { html: "<p><em>Nothing to preview</em></p>" });
  try {
    const result = await api.once.post<{ rendered: string }>("/messages/render", { content: text });
    if (preview.value) preview.value = { html: result.rendered };
  } catch (error) {
    if (preview.value) preview.value = { html: "", error: (error as Error).message };
  }
}

export function FormatBar({ textarea }: { textarea: RefObject<HTMLTextAreaElement | null> }) {
  const previewing = preview.value !== null;
  useDismiss(snippetsOpen.value, () => (snippetsOpen.value = false), ".snippets-menu, .snippets-toggle");
  return (
    <div class="compose-tools" role="toolbar" aria-label="Formatting">
      {BUTTONS.map(([format, label, title]) => (
        <button
          type="button"
          key={format}
          class={`format format-${format}`}
          title={title}
          aria-label={title.replace(/ \(.*\)$/, "")}
          disabled={previewing}
          onMouseDown={(e) => e.preventDefault()}
          onClick={() => formatCompose(textarea.current, format)}
        >
          {label}
        </button>
      ))}
      <span class="spacer" />
      <button
        type="button"
        class={`preview-toggle ${previewing ? "on" : ""}`}
        aria-pressed={previewing}
        title={previewing ? "Continue editing" : "Preview"}
        aria-label={previewing ? "Continue editing" : "Preview"}
        onClick={() => void togglePreview()}
      >
        <Icon d={previewing ? PEN_ICON : EYE_ICON} />
      </button>
      <button
        type="button"
        class="snippets-toggle"
        title="Saved snippets"
        aria-label="Saved snippets"
        aria-expanded={snippetsOpen.value}
        onClick={() => (snippetsOpen.value = !snippetsOpen.value)}
      >
        ✂
      </button>
      <a class="drafts-link" href="#drafts" title="Drafts">
        Drafts{drafts.value.length > 0 ? ` (${drafts.value.length})` : ""}
      </a>
      {scheduledMessages.value.length > 0 && (
        <a class="drafts-link scheduled-link" href="#scheduled" title="Scheduled messages">
          Scheduled ({scheduledMessages.value.length})
        </a>
      )}
      {snippetsOpen.value && <SnippetsMenu textarea={textarea} />}
    </div>
  );
}

/** The rendered message in place of the textarea, styled as messages are. */
export function Preview() {
  const p = preview.value;
  const rendered = useRef<HTMLDivElement>(null);
  // The server's emoji spans get their glyph (or image, or :name: in text mode) as in messages.
  useLayoutEffect(() => {
    if (rendered.current) showEmoji(rendered.current, settings.value.emojiset === "text");
  });
  if (!p) return null;
  if (p.html === null) return <div class="compose-preview status">Rendering…</div>;
  if (p.error)
    return (
      <div class="compose-preview error" role="alert">
        {p.error}
      </div>
    );
  return (
    <div class="compose-preview" aria-label="Preview" ref={rendered}>
      <div class="content rendered_markdown" dangerouslySetInnerHTML={{ __html: p.html }} />
    </div>
  );
}

function SnippetsMenu({ textarea }: { textarea: RefObject<HTMLTextAreaElement | null> }) {
  const [title, setTitle] = useState("");
  const [error, setError] = useState("");
  const text = content.value;
  const create = async () => {
    setError("");
    try {
      await api.once.post("/saved_snippets", { title, content: text });
      setTitle("");
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <div class="compose-popup snippets-menu" role="dialog" aria-label="Saved snippets">
      {snippets.value.length === 0 && <p class="status">No saved snippets yet.</p>}
      <ul>
        {snippets.value.map((s) => (
          <li key={s.id} data-snippet-id={s.id}>
            <button
              type="button"
              class="snippet-insert"
              title={s.content}
              onClick={() => {
                snippetsOpen.value = false;
                insertAtCursor(textarea.current, s.content);
              }}
            >
              {s.title}
            </button>
            <button
              type="button"
              class="snippet-delete"
              aria-label={`Delete snippet ${s.title}`}
              title="Delete"
              onClick={() => void api.del(`/saved_snippets/${s.id}`).catch((e) => setError((e as Error).message))}
            >
              ✕
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={(e) => (e.preventDefault(), void create())}>
        <input aria-label="Snippet title" placeholder="Title of a new snippet" value={title} maxLength={200} onInput={(e) => setTitle(e.currentTarget.value)} />
        <button type="submit" disabled={title.trim() === "" || text.trim() === ""} title="Saves the message being written as a snippet">
          Save message as snippet
        </button>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** The "Send later" menu on the send button. */
export function SendLaterButton({ onError, onScheduled }: { onError: (message: string) => void; onScheduled: (at: number | null) => void }) {
  const [custom, setCustom] = useState("");
  const open = sendLaterOpen.value;
  useDismiss(open, () => (sendLaterOpen.value = false), ".send-later");
  const run = async (at: number | null) => {
    sendLaterOpen.value = false;
    try {
      await scheduleCompose(at);
      onScheduled(at);
    } catch (e) {
      onError((e as Error).message);
    }
  };
  const now = new Date();
  const tomorrow = tomorrowAt9(now);
  const monday = nextMondayAt9(now);
  const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
  return (
    <span class="send-later">
      <button
        type="button"
        class="send-options"
        aria-label="Send options"
        title="Send later"
        aria-expanded={open}
        onClick={() => {
          if (!custom) setCustom(localDateTimeValue(seconds(now) + 3600));
          sendLaterOpen.value = !open;
        }}
      >
        ▾
      </button>
      {open && (
        <div class="compose-popup send-later-menu" role="menu" aria-label="Send later">
          <p class="menu-title">{editingScheduled.value !== null ? "Reschedule" : "Schedule message"}</p>
          <button type="button" role="menuitem" onClick={() => void run(seconds(tomorrow))}>
            Tomorrow at 9:00 <small>{formatScheduledTime(seconds(tomorrow))}</small>
          </button>
          {monday.getTime() !== tomorrow.getTime() && (
            <button type="button" role="menuitem" onClick={() => void run(seconds(monday))}>
              Monday at 9:00 <small>{formatScheduledTime(seconds(monday))}</small>
            </button>
          )}
          <form
            class="custom-time"
            onSubmit={(e) => {
              e.preventDefault();
              const at = parseLocalDateTime(custom);
              if (at === null) return onError("Choose a date and time.");
              void run(at);
            }}
          >
            <input type="datetime-local" aria-label="Custom time" value={custom} step={1} onInput={(e) => setCustom(e.currentTarget.value)} />
            <button type="submit">Schedule</button>
          </form>
        </div>
      )}
    </span>
  );
}
