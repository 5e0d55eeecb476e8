import type { MessagesResponse } from "../../src/contract/responses.js";
import { computed, signal } from "@preact/signals";
import { api } from "./api.js";
import { visitorNarrow } from "./visitor.js";
import { apiNarrow, type Term } from "./hash.js";
import { conversationOf, type Message, unread } from "./state.js";
import { type Conversation, conversationKey } from "./unread.js";

/**
 * The message list of the open view: the messages of one narrow, fetched around an anchor with
 * GET /messages (server-rendered HTML), then kept current by events. Only what is shown is kept.
 */
export interface View {
  terms: Term[];
  messages: Message[];
  /** The message to show first when the view opens (first unread, `near`, or newest). */
  anchorId: number | null;
  loading: boolean;
  /** Fetching older or newer history (scrolling). */
  paging: boolean;
  foundOldest: boolean;
  foundNewest: boolean;
  error: string | null;
}

export const view = signal<View>({
  terms: [],
  messages: [],
  anchorId: null,
  loading: true,
  paging: false,
  foundOldest: false,
  foundNewest: false,
  error: null,
});
let fetchSerial = 0;

/**
 * New messages of the open view that came by event while a fetch that may reach its newest
 * message was on its way (opening it, or paging newer): that fetch's query may have run before
 * they were sent, so they join its answer when it reaches the newest. null when no such fetch.
 */
let arrivedDuringFetch: Message[] | null = null;

/** Messages being sent (or not sent) that belong in a view: set by the outbox. */
export const localEchoes = { forView: (_terms: readonly Term[]): Message[] => [] };

const PAGE = 100;
const FIRST_PAGE = 50;
/** The most messages one view keeps; paging further drops the far end (fetched again if scrolled back). */
const CACHE_LIMIT = 1000;

/** Older (direction -1) or newer (+1) history of the open view, on scrolling to its edge. */
export async function page(direction: -1 | 1): Promise<void> {
  const current = view.value;
  if (current.loading || current.paging || (direction < 0 ? current.foundOldest : current.foundNewest)) return;
  const confirmed = current.messages.filter((m) => !m.local);
  const edge = direction < 0 ? confirmed[0] : confirmed[confirmed.length - 1];
  if (!edge) return;
  const serial = fetchSerial;
  view.value = { ...current, paging: true };
  if (direction > 0) arrivedDuringFetch = [];
  try {
    const filter = current.terms.filter((t) => t.operator !== "near" && t.operator !== "with");
    const result = await api.get<MessagesResponse>("/messages", {
      narrow: visitorNarrow(apiNarrow(filter)),
      anchor: edge.id,
      include_anchor: false,
      num_before: direction < 0 ? PAGE : 0,
      num_after: direction > 0 ? PAGE : 0,
      apply_markdown: true,
      client_gravatar: true,
    });
    if (serial !== fetchSerial) return;
    noteMatches(result.messages);
    const now = view.value;
    let messages =
      direction < 0
        ? [...result.messages, ...now.messages]
        : [...now.messages.filter((m) => !m.local), ...withArrived(result), ...now.messages.filter((m) => m.local)];
    let { foundOldest, foundNewest } = now;
    if (direction < 0) foundOldest = result.found_oldest;
    else foundNewest = result.found_newest;
    if (messages.length > CACHE_LIMIT) {
      if (direction < 0) {
        messages = messages.slice(0, CACHE_LIMIT);
        foundNewest = false;
      } else {
        messages = messages.slice(messages.length - CACHE_LIMIT);
        foundOldest = false;
      }
    }
    view.value = { ...now, messages, foundOldest, foundNewest, paging: false };
  } catch (error) {
    if (serial !== fetchSerial) return;
    if (direction > 0) arrivedDuringFetch = null;
    view.value = { ...view.value, paging: false, error: (error as Error).message };
  }
}

/**
 * A fetch's messages, followed, when it reached the newest, by those that came by event while it
 * was on its way and are newer than its newest (sent after its query ran). Ends the wait.
 */
function withArrived(result: MessagesResponse): Message[] {
  const arrived = arrivedDuringFetch ?? [];
  arrivedDuringFetch = null;
  if (!result.found_newest || arrived.length === 0) return result.messages;
  const newest = result.messages.at(-1)?.id ?? 0; // none: all that came are newer
  return [...result.messages, ...arrived.filter((m) => m.id > newest)];
}

/**
 * A new message (from an event) for the open view: shown when it belongs there and the view
 * reaches the newest; kept for the answer of a fetch on its way. True when shown.
 */
export function receiveNewMessage(message: Message): boolean {
  const terms = view.value.terms;
  if (matchesView(message, terms)) {
    mergeMessages([message]);
    return true;
  }
  if (arrivedDuringFetch && matchesView(message, terms, true)) arrivedDuringFetch.push(message);
  return false;
}

/** The first GET /messages of a view: around the first unread message, or `near`/`with`. */
function openingRequest(terms: readonly Term[]) {
  const anchorTerm = terms.find((t) => t.operator === "near" || t.operator === "with");
  const filter = terms.filter((t) => t.operator !== "near" && t.operator !== "with");
  // Zulip's first fetch of a narrow is 50 + 50 too (narrow_before/narrow_after); more comes on scrolling.
  return {
    narrow: visitorNarrow(apiNarrow(filter)),
    anchor: anchorTerm ? anchorTerm.operand : "first_unread",
    num_before: FIRST_PAGE,
    num_after: FIRST_PAGE,
    apply_markdown: true,
    client_gravatar: true,
  };
}

/** The early first fetch of a view; `answer` once it has come (openNarrow then shows it without waiting). */
let prefetched: { key: string; result: Promise<MessagesResponse>; answer?: MessagesResponse } | null = null;

/**
 * Started before /register answers (main.tsx, for a #narrow link or the feed): the view's first
 * messages come in parallel with the state instead of after it. openNarrow takes the answer
 * when it asks for the same thing.
 */
export function prefetchNarrow(terms: readonly Term[]): void {
  const params = openingRequest(terms);
  const result = api.get<MessagesResponse>("/messages", params);
  const entry: NonNullable<typeof prefetched> = { key: JSON.stringify(params), result };
  result.then((answer) => (entry.answer = answer)).catch(() => {}); // openNarrow reports errors
  prefetched = entry;
}

/** Drops the early fetch (it may be older than the event queue): the view is fetched when opened. */
export function forgetPrefetch(): void {
  prefetched = null;
}

/** Opens a narrow: its messages from the first unread one (or `near`/`with`), newest when all read. */
export async function openNarrow(terms: Term[]): Promise<void> {
  const serial = ++fetchSerial;
  const params = openingRequest(terms);
  const key = JSON.stringify(params);
  const early = prefetched?.key === key ? prefetched : null;
  prefetched = null;
  // Messages that came before the state: shown in the app's first render (one layout, not two).
  if (early?.answer) return showOpened(terms, early.answer);
  view.value = { terms, messages: [], anchorId: null, loading: true, paging: false, foundOldest: false, foundNewest: false, error: null };
  arrivedDuringFetch = [];
  try {
    const result = await (early?.result ?? api.get<MessagesResponse>("/messages", params));
    if (serial !== fetchSerial) return;
    showOpened(terms, result);
  } catch (error) {
    if (serial !== fetchSerial) return;
    arrivedDuringFetch = null;
    view.value = { ...view.value, loading: false, error: (error as Error).message };
  }
}

/** The first page of a view: around its anchor, with the messages being sent to it when it reaches the newest. */
function showOpened(terms: Term[], result: MessagesResponse): void {
  searchMatches.clear();
  noteMatches(result.messages);
  const anchorId = result.messages.some((m: Message) => m.id === result.anchor) ? (result.anchor ?? null) : (result.messages.at(-1)?.id ?? null);
  const fetched = withArrived(result);
  const messages = result.found_newest ? [...fetched, ...localEchoes.forView(terms)] : fetched;
  view.value = { terms, messages, anchorId, loading: false, paging: false, foundOldest: result.found_oldest, foundNewest: result.found_newest, error: null };
}

/**
 * After a new registration (the old queue was lost, and the events it would have had with it):
 * the open view is fetched again from its first message shown, so that edits, reactions, flags
 * and deletions made meanwhile replace what is shown, and newer messages join it.
 */
export async function catchUp(): Promise<void> {
  const current = view.value;
  const confirmed = current.messages.filter((m) => !m.local);
  const first = confirmed[0];
  if (!first) return openNarrow(current.terms);
  const filter = current.terms.filter((t) => t.operator !== "near" && t.operator !== "with");
  const result = await api.get<MessagesResponse>("/messages", {
    narrow: visitorNarrow(apiNarrow(filter)),
    anchor: first.id,
    include_anchor: true,
    num_before: 0,
    num_after: CACHE_LIMIT,
    apply_markdown: true,
    client_gravatar: true,
  });
  if (view.value.terms !== current.terms) return; // another view opened meanwhile
  const fetched: Message[] = result.messages;
  noteMatches(fetched);
  const lastFetched = fetched.at(-1)?.id ?? first.id;
  // A message shown in the range fetched but not in the answer was deleted (or left the view).
  const outside = (m: Message) => m.local || m.id < first.id || (!result.found_newest && m.id > lastFetched);
  view.value = { ...view.value, messages: view.value.messages.filter(outside) };
  mergeMessages(fetched);
}

export function mergeMessages(incoming: Message[]): void {
  const byId = new Map(view.value.messages.map((m) => [m.id, m]));
  for (const m of incoming) byId.set(m.id, m);
  let messages = [...byId.values()].sort((a, b) => (a.local ? Infinity : a.id) - (b.local ? Infinity : b.id));
  let { foundOldest } = view.value;
  // A busy view that follows new messages keeps only the newest CACHE_LIMIT (older ones are fetched again on scrolling up).
  if (messages.length > CACHE_LIMIT) {
    messages = messages.slice(messages.length - CACHE_LIMIT);
    foundOldest = false;
  }
  view.value = { ...view.value, messages, foundOldest };
}

/** Whether a new message belongs in the open view (the narrows the app can decide locally). */
export function matchesView(message: Message, terms: readonly Term[], ignoreNewest = false): boolean {
  for (const term of terms) {
    let ok: boolean;
    switch (term.operator) {
      case "channel":
        ok = message.type === "stream" && String(message.stream_id) === term.operand;
        break;
      case "topic":
        ok = message.type === "stream" && message.subject.toLowerCase() === term.operand.toLowerCase();
        break;
      case "dm": {
        const key = conversationKey(conversationOf(message));
        ok = message.type === "private" && key === conversationKey({ kind: "dm", userIds: term.operand.split(",").map(Number) });
        break;
      }
      case "sender":
        ok = String(message.sender_id) === term.operand;
        break;
      case "is":
        ok =
          term.operand === "dm"
            ? message.type === "private"
            : term.operand === "starred"
              ? message.flags.includes("starred")
              : term.operand === "mentioned"
                ? message.flags.some((f) => f.endsWith("mentioned"))
                : false;
        break;
      case "near":
      case "with":
        ok = true;
        break;
      default:
        return false; // search and the rest: the server decides; shown on the next fetch
    }
    if (ok === term.negated) return false;
  }
  return ignoreNewest || view.value.foundNewest;
}

export function updateMessages(fn: (m: Message) => Message | null): void {
  // Edits, moves and deletions of messages waiting for a fetch's answer apply to them too.
  if (arrivedDuringFetch) arrivedDuringFetch = arrivedDuringFetch.map(fn).filter((m): m is Message => m !== null);
  const messages: Message[] = [];
  let changed = false;
  for (const m of view.value.messages) {
    const next = fn(m);
    if (next !== m) changed = true;
    if (next) messages.push(next);
  }
  if (changed) view.value = { ...view.value, messages };
}

/** A search result's highlighted copies (the server's match_content/match_subject). */
type Matched = Message & { match_content?: string; match_subject?: string };
/** The content and topic each highlighted copy was made from: an edit since then shows the plain new text. */
const searchMatches = new Map<number, { content: string; subject: string }>();

function noteMatches(messages: Matched[]): void {
  for (const m of messages) if (typeof m.match_content === "string") searchMatches.set(m.id, { content: m.content, subject: m.subject });
}

/** The message's content with the searched words highlighted (search views), or null. */
export function searchHighlight(m: Message): string | null {
  const match = (m as Matched).match_content;
  return match !== undefined && searchMatches.get(m.id)?.content === m.content ? match : null;
}

/** The message's topic as HTML with the searched words highlighted (search views), or null. */
export function topicHighlight(m: Message): string | null {
  const match = (m as Matched).match_subject;
  return match !== undefined && m.subject !== "" && searchMatches.get(m.id)?.subject === m.subject ? match : null;
}

/** The message a permalink (`near`/`with`) points at in the open view: shown highlighted. */
export const permalinkTarget = computed<number | null>(() => {
  const term = view.value.terms.find((t) => (t.operator === "near" || t.operator === "with") && !t.negated);
  return term && /^\d+$/.test(term.operand) ? Number(term.operand) : null;
});

/**
 * How many unread messages the open view has in all (loaded or not), when the unread index can
 * tell (channel, topic and DM narrows, as the sidebar counts them); null for other narrows.
 */
export function viewUnreadTotal(terms: readonly Term[]): number | null {
  const tests: Array<(c: Conversation) => boolean> = [];
  for (const t of terms) {
    if (t.operator === "near" || t.operator === "with") continue;
    if (t.negated) return null;
    if (t.operator === "channel") tests.push((c) => c.kind === "channel" && String(c.channelId) === t.operand);
    else if (t.operator === "topic") tests.push((c) => c.kind === "channel" && c.topic.toLowerCase() === t.operand.toLowerCase());
    else if (t.operator === "dm") {
      const key = conversationKey({ kind: "dm", userIds: t.operand.split(",").map(Number) });
      tests.push((c) => c.kind === "dm" && conversationKey(c) === key);
    } else return null;
  }
  if (tests.length === 0) return null;
  return unread.count((c) => tests.every((test) => test(c)));
}
