import type { Draft } from "../store/drafts.js";
import type { SavedSnippet } from "../store/savedSnippets.js";

/** Zulip's Draft.to_dict. */
export function draftPayload(draft: Draft) {
  return { id: draft.id, type: draft.type, to: JSON.parse(draft.to) as number[], topic: draft.topic, content: draft.content, timestamp: draft.last_edit_time };
}

/** Zulip's SavedSnippet.to_api_dict. */
export function savedSnippetPayload(snippet: SavedSnippet) {
  return { id: snippet.id, title: snippet.title, content: snippet.content, date_created: snippet.date_created };
}
