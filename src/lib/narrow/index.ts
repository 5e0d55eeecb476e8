import { narrowSql } from "../../store/narrowConditions.js";
import type { NarrowQuery } from "../../store/narrowQueries.js";
import { userMessageStore } from "../../store/userMessages.js";
import { accessMessages, channelReadability } from "../messageAccess.js";
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
 * joined to the viewer's rows.
 */
export interface BuiltNarrow {
  where: Condition;
  includeHistory: boolean;
  /** Words of a `search` term, for highlighting; null without search. */
  searchWords: string[] | null;
}

export async function buildNarrow(narrowCtx: NarrowContext, rawTerms: readonly NarrowTerm[]): Promise<BuiltNarrow> {
  // Every narrow needs the access rules of every channel; channel terms are resolved from them too.
  const ctx: BuildContext = { ...narrowCtx, channels: await channelReadability(narrowCtx.q, narrowCtx.subject) };
  const terms = await resolveWithOperator(ctx, rawTerms);
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
  const includeHistory = history && !personalOnly;
  conditions.push(accessCondition(ctx, includeHistory));
  return { where: narrowSql.all(conditions), includeHistory, searchWords: searches ? searchWords : null };
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
  const found = (await accessMessages(ctx.q, ctx.subject, [id])).get(id);
  if (!found) return rest;
  const message = found.message;
  const kept = rest.filter((t) => !["channel", "topic", "dm", "dm-including"].includes(t.operator));
  if (message.is_channel_message) {
    const streamId = ctx.channels.readable.get(message.recipient_id)!.stream.id;
    return [{ operator: "channel", operand: streamId, negated: false }, { operator: "topic", operand: message.subject, negated: false }, ...kept];
  }
  const participants = await userMessageStore.userIdsFor(ctx.q, message.id);
  return [{ operator: "dm", operand: participants, negated: false }, ...kept];
}

/** The store's query for a built narrow, run as `user` of `realmId`. */
export function narrowQueryFor(narrow: BuiltNarrow, user: { id: number }, realmId: number): NarrowQuery {
  return { userId: user.id, realmId, includeHistory: narrow.includeHistory, where: narrow.where, searchesText: narrow.searchWords !== null };
}
