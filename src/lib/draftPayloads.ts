import * as z from "zod";
import type { Draft } from "../store/drafts.js";
import type { SavedSnippet } from "../store/savedSnippets.js";
import { parseJsonColumn } from "../util/jsonColumn.js";

const DRAFT_TO = z.array(z.number().int());

/** Zulip's Draft.to_dict. */
export function draftPayload(draft: Draft) {
  return {
    id: draft.id,
    type: draft.type,
    to: parseJsonColumn(DRAFT_TO, draft.to, "drafts.to"),
    topic: draft.topic,
    content: draft.content,
    timestamp: draft.last_edit_time,
  };
}

/** Zulip's SavedSnippet.to_api_dict. */
export function savedSnippetPayload(snippet: SavedSnippet) {
  return { id: snippet.id, title: snippet.title, content: snippet.content, date_created: snippet.date_created };
}
