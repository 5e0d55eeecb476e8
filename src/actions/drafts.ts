import { nowSeconds } from "../util/time.js";
import type { User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { ApiError, badRequest } from "../lib/errors.js";
import { AccessSubject, accessStreamById } from "../lib/streamAccess.js";
import { userSettings } from "../models/userSettings.js";
import { draftPayload, savedSnippetPayload } from "../lib/draftPayloads.js";
import { draftStore } from "../store/drafts.js";
import { savedSnippetStore } from "../store/savedSnippets.js";
import { userStore } from "../store/users.js";
import { normalizeContent, truncate } from "../lib/messageText.js";
import { MAX_TOPIC_LENGTH } from "../models/limits.js";

/** A draft as a client sends it (Zulip's DraftData). */
export interface DraftData {
  type: "stream" | "private" | "";
  to: number[];
  topic: string;
  content: string;
  timestamp?: number | null;
}

const draftNotFound = () => new ApiError("Draft does not exist", { status: 404 });

/** Zulip's draft_endpoint: drafts are kept only for users who synchronize them. */
export function checkDraftsEnabled(user: User): void {
  if (!userSettings(user).enable_drafts_synchronization) throw badRequest("User has disabled synchronizing drafts.");
}

/** Zulip's further_validated_draft_dict: the row's columns for a valid draft. */
async function draftColumns(tx: Tx, user: User, draft: DraftData) {
  const content = normalizeContent(draft.content);
  const timestamp = draft.timestamp ?? Date.now() / 1000;
  if (timestamp < 0) throw badRequest("Timestamp must not be negative.");
  let to: number[] = [];
  let topic = "";
  if (draft.type === "stream") {
    topic = truncate(draft.topic, MAX_TOPIC_LENGTH, "…");
    if (topic.includes("\u0000")) throw badRequest("Topic must not contain null bytes");
    const [streamId] = draft.to;
    if (draft.to.length !== 1 || streamId === undefined) throw badRequest("Must specify exactly 1 channel ID for channel messages");
    to = [(await accessStreamById(tx.q, new AccessSubject(user), streamId)).stream.id];
  } else if (draft.type === "private" && draft.to.length > 0) {
    const ids = [...new Set(draft.to)];
    const found = new Set((await userStore.listByIds(tx.q, user.realm_id, ids)).map((u) => u.id));
    const missing = ids.find((id) => !found.has(id));
    if (missing !== undefined) throw badRequest(`Invalid user ID ${missing}`);
    to = ids.sort((a, b) => a - b);
  }
  return { type: draft.type, to: JSON.stringify(to), topic, content, last_edit_time: Math.round(timestamp) };
}

export async function doCreateDrafts(tx: Tx, user: User, drafts: readonly DraftData[]): Promise<number[]> {
  checkDraftsEnabled(user);
  const rows = [];
  for (const draft of drafts) rows.push({ user_id: user.id, ...(await draftColumns(tx, user, draft)) });
  const created = await draftStore.insertMany(tx.q, rows);
  if (created.length > 0) tx.sendEventOnCommit({ type: "drafts", op: "add", drafts: created.map(draftPayload) }, [user.id]);
  return created.map((d) => d.id);
}

export async function doEditDraft(tx: Tx, user: User, id: number, draft: DraftData): Promise<void> {
  checkDraftsEnabled(user);
  const existing = await draftStore.get(tx.q, user.id, id);
  if (!existing) throw draftNotFound();
  const columns = await draftColumns(tx, user, draft);
  await draftStore.update(tx.q, id, columns);
  tx.sendEventOnCommit({ type: "drafts", op: "update", draft: draftPayload({ ...existing, ...columns }) }, [user.id]);
}

export async function doDeleteDraft(tx: Tx, user: User, id: number): Promise<void> {
  checkDraftsEnabled(user);
  if (!(await draftStore.get(tx.q, user.id, id))) throw draftNotFound();
  await draftStore.delete(tx.q, id);
  tx.sendEventOnCommit({ type: "drafts", op: "remove", draft_id: id }, [user.id]);
}

const snippetNotFound = () => new ApiError("Saved snippet does not exist.", { status: 404 });

export async function doCreateSavedSnippet(tx: Tx, user: User, title: string, content: string): Promise<number> {
  const snippet = await savedSnippetStore.insert(tx.q, { realm_id: user.realm_id, user_id: user.id, title, content, date_created: nowSeconds() });
  tx.sendEventOnCommit({ type: "saved_snippets", op: "add", saved_snippet: savedSnippetPayload(snippet) }, [user.id]);
  return snippet.id;
}

export async function doEditSavedSnippet(tx: Tx, user: User, id: number, changes: { title?: string; content?: string }): Promise<void> {
  const existing = await savedSnippetStore.get(tx.q, user.id, id);
  if (!existing) throw snippetNotFound();
  if (changes.title === undefined && changes.content === undefined) return;
  await savedSnippetStore.update(tx.q, id, changes);
  tx.sendEventOnCommit({ type: "saved_snippets", op: "update", saved_snippet: savedSnippetPayload({ ...existing, ...changes }) }, [user.id]);
}

export async function doDeleteSavedSnippet(tx: Tx, user: User, id: number): Promise<void> {
  if (!(await savedSnippetStore.get(tx.q, user.id, id))) throw snippetNotFound();
  await savedSnippetStore.delete(tx.q, id);
  tx.sendEventOnCommit({ type: "saved_snippets", op: "remove", saved_snippet_id: id }, [user.id]);
}
