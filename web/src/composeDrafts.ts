import { api, myUserId } from "./api.js";
import { type Draft, drafts, removeDraft, upsertDrafts } from "./composeData.js";
import { channelId, composeOpen, content, destination, destinationKey, dmTo, editingScheduled, topic } from "./composeState.js";
import type { Destination } from "./outbox.js";
import { settings } from "./state.js";

/**
 * Drafts as Zulip's web app keeps them: what is typed and not sent is saved after a pause and when
 * the conversation changes, restored when that conversation opens again, deleted when sent. With
 * enable_drafts_synchronization they are the server's (/drafts, live by events); without, they
 * stay in this browser (localStorage), as in Zulip.
 */
const SAVE_AFTER_MS = 1500;
const LOCAL_KEY = `parley-drafts:${myUserId}`;

type DraftData = Omit<Draft, "id">;
/** One conversation's text in the compose box: the draft it is saved as, once it is. */
interface Session {
  id: number | null;
  /** What was last saved (destination and text): the same again is not saved again. */
  saved?: string;
}
let session: Session = { id: null };
let timer: ReturnType<typeof setTimeout> | undefined;
/** Saves run one after another, so that a draft is created once and then updated. */
let chain: Promise<void> = Promise.resolve();

function synchronized(): boolean {
  return settings.value.enable_drafts_synchronization !== false;
}

export function localDrafts(): Draft[] {
  try {
    const list = JSON.parse(localStorage.getItem(LOCAL_KEY) ?? "[]") as unknown;
    return Array.isArray(list) ? (list as Draft[]) : [];
  } catch {
    return [];
  }
}

function storeLocal(): void {
  try {
    localStorage.setItem(LOCAL_KEY, JSON.stringify(drafts.value.filter((d) => d.id < 0)));
  } catch {
    // storage full or disabled: drafts live as long as the page
  }
}

function draftData(d: Destination | null, text: string): DraftData {
  const timestamp = Math.floor(Date.now() / 1000);
  if (!d) return { type: "", to: [], topic: "", content: text, timestamp };
  if (d.kind === "channel") return { type: "stream", to: [d.channelId], topic: d.topic, content: text, timestamp };
  return { type: "private", to: [...d.userIds].sort((a, b) => a - b), topic: "", content: text, timestamp };
}

function fingerprint(data: DraftData): string {
  return JSON.stringify([data.type, data.to, data.topic, data.content]);
}

async function write(s: Session, data: DraftData): Promise<void> {
  // Unchanged since it was saved (or restored): nothing to do. If its draft went meanwhile (sent
  // or deleted in another browser), it is not brought back.
  const saved = fingerprint(data);
  if (s.saved === saved) return;
  if (!synchronized()) {
    s.id ??= -Date.now();
    upsertDrafts([{ ...data, id: s.id }]);
    storeLocal();
    s.saved = saved;
    return;
  }
  if (s.id !== null && drafts.value.some((d) => d.id === s.id)) {
    upsertDrafts([{ ...data, id: s.id }]);
    await api.patch(`/drafts/${s.id}`, { draft: data });
  } else {
    const result = await api.once.post<{ ids: number[] }>("/drafts", { drafts: [data] });
    const id = result.ids[0]!;
    s.id = id;
    upsertDrafts([{ ...data, id }]);
  }
  s.saved = saved;
}

async function erase(s: Session): Promise<void> {
  if (s.id === null) return;
  const id = s.id;
  s.id = null;
  s.saved = undefined;
  removeDraft(id);
  if (id < 0) return storeLocal();
  await api.del(`/drafts/${id}`).catch(() => {});
}

function enqueue(task: () => Promise<void>): Promise<void> {
  chain = chain.then(task).catch((error) => console.warn("draft not saved", error));
  return chain;
}

/** Saves (or, when emptied, deletes) the compose box's text as its conversation's draft now. */
export function saveDraftNow(): Promise<void> {
  clearTimeout(timer);
  if (editingScheduled.value !== null) return chain;
  const s = session;
  const text = content.value;
  const data = draftData(destination(), text);
  return enqueue(() => (text.trim() === "" ? erase(s) : write(s, data)));
}

/** The text changed: saved after a pause in typing. */
export function noteDraftChange(): void {
  clearTimeout(timer);
  timer = setTimeout(() => void saveDraftNow(), SAVE_AFTER_MS);
}

/** The message was sent (or scheduled): its draft goes. */
export function draftSent(): void {
  clearTimeout(timer);
  const s = session;
  session = { id: null };
  void enqueue(() => erase(s));
}

function sameDestination(draft: Draft, d: Destination): boolean {
  if (d.kind === "channel") return draft.type === "stream" && draft.to[0] === d.channelId && draft.topic.toLowerCase() === d.topic.toLowerCase();
  return draft.type === "private" && draft.to.join(",") === [...d.userIds].sort((a, b) => a - b).join(",");
}

/**
 * The compose box moves to another conversation (`change` sets its destination): the text typed
 * so far is saved as a draft of the old one, and the new one's latest draft, if any, comes back.
 */
export function switchConversation(change: () => void): void {
  const oldDestination = destination();
  const before = destinationKey(oldDestination);
  change();
  if (destinationKey() === before) return;
  if (editingScheduled.value !== null) {
    // The scheduled message keeps its text; leaving it ends the edit.
    editingScheduled.value = null;
    content.value = "";
  } else {
    // The old conversation's text is saved now (or, emptied, its draft deleted).
    clearTimeout(timer);
    const text = content.value;
    const s = session;
    const old = draftData(oldDestination, text);
    void enqueue(() => (text.trim() === "" ? erase(s) : write(s, old)));
  }
  session = { id: null };
  content.value = "";
  const d = destination();
  const found = d ? drafts.value.find((draft) => sameDestination(draft, d)) : undefined;
  if (found) {
    content.value = found.content;
    session = { id: found.id, saved: fingerprint(found) };
  }
}

/** Opens a draft in the compose box (from #drafts): its destination and text. */
export function restoreDraft(draft: Draft): void {
  switchConversation(() => {
    if (draft.type === "stream") {
      dmTo.value = null;
      channelId.value = draft.to[0] ?? null;
      topic.value = draft.topic;
    } else if (draft.type === "private") {
      dmTo.value = draft.to.length > 0 ? draft.to : [myUserId];
    }
  });
  content.value = draft.content;
  session = { id: draft.id, saved: fingerprint(draft) };
  composeOpen.value = true;
}

export async function deleteDraft(draft: Draft): Promise<void> {
  if (session.id === draft.id) session = { id: null };
  await enqueue(() => erase({ id: draft.id }));
}
