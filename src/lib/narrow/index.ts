import { narrowSql } from "../../store/narrowConditions.js";
import type { NarrowQuery } from "../../store/narrowQueries.js";
import { userMessageStore } from "../../store/userMessages.js";
import { accessMessages, accessMessagesAsVisitor, channelReadability, type ChannelReadability, visitorReadability } from "../messageAccess.js";
import { MissingAuthenticationError } from "../errors.js";
import { foldCase } from "../../util/foldCase.js";
import { BadNarrowError, type BuildContext, BUILDERS, type Condition, messageIdOperand, type NarrowContext } from "./operators.js";
import type { NarrowTerm } from "./parse.js";

export { BadNarrowError, type NarrowContext } from "./operators.js";
export { canonicalTerms, MAX_NARROW_TERMS, narrowSchema, type NarrowTerm } from "./parse.js";
export { searchFields } from "./search.js";

/**
 * A narrow turned into one SQL condition on `m` (messages) and `um` (the viewer's
 * user_messages row), including the access rules (messageAccess.channelReadability), so the
 * store can run it as is. `includeHistory` selects Zulip's two query shapes: the viewer's own
 * rows only ("personal history"), or all messages of readable channels with public history
 * joined to the viewer's rows. A visitor (no account) has no rows: always the second shape, over
 * the channels visitors may read.
 */
export interface BuiltNarrow {
  where: Condition;
  includeHistory: boolean;
  /** Words of a `search` term, for highlighting; null without search. */
  searchWords: string[] | null;
}

export async function buildNarrow(narrowCtx: NarrowContext, rawTerms: readonly NarrowTerm[]): Promise<BuiltNarrow> {
  // Every narrow needs the access rules of every channel; channel terms are resolved from them too.
  const channels = narrowCtx.subject ? await channelReadability(narrowCtx.q, narrowCtx.subject) : await visitorReadability(narrowCtx.q, narrowCtx.realmId);
  const ctx: BuildContext = { ...narrowCtx, channels };
  const terms = await resolveWithOperator(ctx, narrowCtx.subject ? rawTerms : visitorTerms(rawTerms, channels));
  const conditions: Condition[] = [];
  let history = false;
  let personalOnly = false;
  const searchWords: string[] = [];
  let searches = false;
  for (const term of terms) {
    const builder = BUILDERS[term.operator];
    if (!builder) throw new BadNarrowError(`unknown operator ${term.operator}`);
    const built = await builder(ctx, term.operand);
    conditions.push(term.negated ? narrowSql.not(built.where) : built.where);
    if (built.history && !term.negated) history = true;
    if (built.personalOnly) personalOnly = true;
    if (built.searchWords && !term.negated) {
      searches = true;
      searchWords.push(...built.searchWords);
    }
  }
  const includeHistory = narrowCtx.subject === null || (history && !personalOnly);
  conditions.push(accessCondition(ctx, includeHistory));
  return { where: narrowSql.all(conditions), includeHistory, searchWords: searches ? searchWords : null };
}

/** Zulip's is_spectator_compatible: the operators a visitor may use (canonical names). */
const VISITOR_OPERATORS = new Set(["channel", "channels", "topic", "sender", "has", "search", "near", "id", "with"]);

/**
 * Zulip's checks before a visitor's narrow runs (get_messages_backend without a user): `in:home`
 * is dropped (clean_narrow_for_web_public_api); the narrow must say it is a web-public query
 * (`channels:web-public`, not negated) or, as Parley also allows (issue 38), name (not negated) a
 * channel visitors may read; and it may use only the operators spectators may. Anything else is
 * Zulip's MissingAuthenticationError: a client that forgot its credentials, not an empty answer.
 */
function visitorTerms(rawTerms: readonly NarrowTerm[], channels: ChannelReadability): NarrowTerm[] {
  const terms = rawTerms.filter((t) => !(t.operator === "in" && t.operand === "home" && !t.negated));
  const readable = [...channels.byStreamId.values()].filter((c) => c.canReadContent).map((c) => c.stream);
  const namesReadable = (operand: NarrowTerm["operand"]) =>
    typeof operand === "number"
      ? readable.some((s) => s.id === operand)
      : typeof operand === "string" && readable.some((s) => foldCase(s.name) === foldCase(operand));
  const webPublicQuery = terms.some(
    (t) => !t.negated && ((t.operator === "channels" && t.operand === "web-public") || (t.operator === "channel" && namesReadable(t.operand))),
  );
  if (!webPublicQuery || terms.some((t) => !VISITOR_OPERATORS.has(t.operator))) throw new MissingAuthenticationError();
  return terms;
}

/** SECURITY.md's reading rules as a condition: the same rules as messageAccess.accessMessages. */
function accessCondition(ctx: BuildContext, includeHistory: boolean): Condition {
  const { unreadable, readable, protectedHistory } = ctx.channels;
  if (!includeHistory) return narrowSql.access(unreadable, null);
  const protectedSet = new Set(protectedHistory);
  return narrowSql.access(
    unreadable,
    [...readable.keys()].filter((id) => !protectedSet.has(id)),
  );
}

/**
 * Zulip 10's `with` operator: the conversation that contains the message now. Its channel,
 * topic and dm terms replace the narrow's; an inaccessible message leaves the narrow without it.
 */
async function resolveWithOperator(ctx: BuildContext, terms: readonly NarrowTerm[]): Promise<NarrowTerm[]> {
  const withTerm = terms.find((t) => t.operator === "with");
  if (!withTerm) return [...terms];
  const rest = terms.filter((t) => t.operator !== "with");
  const id = messageIdOperand(withTerm.operand);
  const message = ctx.subject
    ? (await accessMessages(ctx.q, ctx.subject, [id])).get(id)?.message
    : (await accessMessagesAsVisitor(ctx.q, ctx.realmId, [id])).get(id);
  if (!message) return rest;
  const kept = rest.filter((t) => !["channel", "topic", "dm", "dm-including"].includes(t.operator));
  if (message.is_channel_message) {
    const streamId = ctx.channels.readable.get(message.recipient_id)!.stream.id;
    return [{ operator: "channel", operand: streamId, negated: false }, { operator: "topic", operand: message.subject, negated: false }, ...kept];
  }
  const participants = await userMessageStore.userIdsFor(ctx.q, message.id);
  return [{ operator: "dm", operand: participants, negated: false }, ...kept];
}

/** The store's query for a built narrow, run as `user` of `realmId` (null: a visitor). */
export function narrowQueryFor(narrow: BuiltNarrow, user: { id: number } | null, realmId: number): NarrowQuery {
  return { userId: user?.id ?? null, realmId, includeHistory: narrow.includeHistory, where: narrow.where, searchesText: narrow.searchWords !== null };
}
