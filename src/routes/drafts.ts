import * as z from "zod";
import {
  checkDraftsEnabled,
  doCreateDrafts,
  doCreateSavedSnippet,
  doDeleteDraft,
  doDeleteSavedSnippet,
  doEditDraft,
  doEditSavedSnippet,
} from "../actions/drafts.js";
import { draftPayload, savedSnippetPayload } from "../lib/draftPayloads.js";
import { transaction } from "../appContext.js";
import { badRequest } from "../lib/errors.js";
import { endpoint } from "../http/endpoint.js";
import { p, pathParam } from "../http/params.js";
import { draftStore } from "../store/drafts.js";
import { savedSnippetStore } from "../store/savedSnippets.js";
import { MAX_SNIPPET_TITLE_LENGTH } from "../models/limits.js";

/** Zulip's DraftData: exactly these keys. */
const draftData = z
  .object({
    type: z.enum(["private", "stream", ""]),
    to: z.array(z.number().int()),
    topic: z.string(),
    content: z.string().min(1),
    timestamp: z.number().nullable().optional(),
  })
  .strict();

/** GET /drafts */
export const listDrafts = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user }) => {
    checkDraftsEnabled(user);
    const drafts = (await draftStore.listForUser(ctx.db.kysely, user.id)).map(draftPayload);
    return { count: drafts.length, drafts };
  },
});

/** POST /drafts */
export const createDrafts = endpoint({
  auth: "user",
  params: { drafts: p.json(z.array(draftData).max(1000)).default([]) },
  handler: async ({ ctx, user, params }) => ({ ids: await transaction(ctx, (tx) => doCreateDrafts(tx, user, params.drafts)) }),
});

/** PATCH /drafts/{draft_id} */
export const editDraft = endpoint({
  auth: "user",
  params: { draft: p.json(draftData) },
  handler: async ({ ctx, user, params, path }) => {
    const id = pathParam.int(path.draft_id, "draft_id");
    await transaction(ctx, (tx) => doEditDraft(tx, user, id, params.draft));
  },
});

/** DELETE /drafts/{draft_id} */
export const deleteDraft = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, path }) => {
    const id = pathParam.int(path.draft_id, "draft_id");
    await transaction(ctx, (tx) => doDeleteDraft(tx, user, id));
  },
});

/** A title or content: stripped, then 1..max characters. */
function snippetText(value: string | undefined, name: "Title" | "Content", max: number): string | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === "") throw badRequest(`${name} cannot be empty.`);
  if (text.length > max) throw badRequest(`${name.toLowerCase()} is too long (limit: ${max} characters)`);
  return text;
}

/** GET /saved_snippets */
export const listSavedSnippets = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user }) => ({ saved_snippets: (await savedSnippetStore.listForUser(ctx.db.kysely, user.id)).map(savedSnippetPayload) }),
});

/** POST /saved_snippets */
export const createSavedSnippet = endpoint({
  auth: "user",
  params: { title: p.string({ trim: false }), content: p.string({ trim: false }) },
  handler: async ({ ctx, user, params }) => {
    const title = snippetText(params.title, "Title", MAX_SNIPPET_TITLE_LENGTH)!;
    const content = snippetText(params.content, "Content", 10000)!;
    return { saved_snippet_id: await transaction(ctx, (tx) => doCreateSavedSnippet(tx, user, title, content)) };
  },
});

/** PATCH /saved_snippets/{saved_snippet_id} */
export const editSavedSnippet = endpoint({
  auth: "user",
  params: { title: p.string({ trim: false }).optional(), content: p.string({ trim: false }).optional() },
  handler: async ({ ctx, user, params, path }) => {
    const id = pathParam.int(path.saved_snippet_id, "saved_snippet_id");
    const changes = { title: snippetText(params.title, "Title", MAX_SNIPPET_TITLE_LENGTH), content: snippetText(params.content, "Content", 10000) };
    await transaction(ctx, (tx) => doEditSavedSnippet(tx, user, id, Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined))));
  },
});

/** DELETE /saved_snippets/{saved_snippet_id} */
export const deleteSavedSnippet = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, path }) => {
    const id = pathParam.int(path.saved_snippet_id, "saved_snippet_id");
    await transaction(ctx, (tx) => doDeleteSavedSnippet(tx, user, id));
  },
});
