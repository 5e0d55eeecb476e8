import { HASH_OPERATOR_ALIASES } from "../../src/contract/constants.js";
import type { Term } from "./hash.js";

/**
 * The search box: Zulip's search operators typed as text ("channel:Verona topic:lunch sender:
 * iago@zulip.com is:starred words"), parsed into a narrow, and suggestions for what is being
 * typed (Zulip's search_suggestion.ts, simplified): operators, channel names, topics, people,
 * is:/has: values, and the plain search. Pure functions; the app passes its channels, topics
 * and people. Loaded with the search box's first use (not in the initial JavaScript).
 */
export interface SearchContext {
  myId: number;
  channels: Array<{ id: number; name: string }>;
  users: Array<{ id: number; name: string; email: string }>;
  /** Topics of a channel, newest first (those the app knows). */
  topicsOf(channelId: number): string[];
}

export interface Suggestion {
  /** The search box's new text. */
  text: string;
  /** What the suggestion means, for people. */
  description: string;
  /** Picking it completes an operator only (the box keeps focus); otherwise it searches. */
  partial?: boolean;
}

const OPERATORS = new Set(["channel", "channels", "topic", "sender", "dm", "dm-including", "is", "has", "in", "near", "id", "with", "search"]);
const IS_VALUES: Array<[string, string]> = [
  ["starred", "Starred messages"],
  ["mentioned", "@-mentions"],
  ["unread", "Unread messages"],
  ["resolved", "Topics marked as resolved"],
  ["followed", "Followed topics"],
  ["dm", "Direct messages"],
  ["alerted", "Alerted messages"],
];
const HAS_VALUES: Array<[string, string]> = [
  ["link", "Messages with links"],
  ["image", "Messages with images"],
  ["attachment", "Messages with attachments"],
  ["reaction", "Messages with reactions"],
];
const OPERATOR_HELP: Array<[string, string]> = [
  ["channel:", "Messages in a channel"],
  ["topic:", "Messages in a topic"],
  ["sender:", "Sent by someone"],
  ["dm:", "Direct messages with someone"],
  ["is:", "Starred, mentioned, unread, resolved, followed…"],
  ["has:", "With a link, image or attachment"],
];

/** An operand as typed: "+" stands for a space (as in Zulip's search box); quotes are removed. */
function decodeOperand(raw: string): string {
  const unquoted = /^".*"$/.test(raw) ? raw.slice(1, -1) : raw.replace(/\+/g, " ");
  try {
    return decodeURIComponent(unquoted.replace(/%(?![0-9a-fA-F]{2})/g, "%25"));
  } catch {
    return unquoted;
  }
}

/** An operand written into the box: spaces as "+" (Zulip's encodeOperand). */
function encodeOperand(text: string): string {
  return text.replace(/[%+"]/g, (c) => encodeURIComponent(c)).replace(/ /g, "+");
}

/** Tokens: words, with double-quoted parts kept together ("topic:"two words""). */
function tokens(text: string): string[] {
  return text.match(/(?:[^\s"]+|"[^"]*"?)+/g) ?? [];
}

function canonical(op: string): string {
  const lower = op.toLowerCase();
  return HASH_OPERATOR_ALIASES[lower] ?? lower;
}

/** The narrow a search text means; channels and people by name/email, as ids when known. */
export function parseSearch(text: string, ctx: SearchContext): Term[] {
  const terms: Term[] = [];
  const words: string[] = [];
  for (const token of tokens(text)) {
    const match = /^(-?)([a-zA-Z-]+):(.*)$/.exec(token);
    const operator = match ? canonical(match[2]!) : "";
    if (!match || !OPERATORS.has(operator) || match[3] === "") {
      words.push(token.replace(/^"|"$/g, ""));
      continue;
    }
    const negated = match[1] === "-";
    let operand = decodeOperand(match[3]!);
    if (operator === "channel") {
      const channel =
        ctx.channels.find((c) => c.name.toLowerCase() === operand.toLowerCase()) ??
        (/^\d+$/.test(operand) ? ctx.channels.find((c) => c.id === Number(operand)) : undefined);
      if (channel) operand = String(channel.id);
    } else if (operator === "sender" || operator === "dm" || operator === "dm-including") {
      const ids = operand.split(",").map((part) => {
        const p = part.trim().toLowerCase();
        if (p === "me") return ctx.myId;
        return ctx.users.find((u) => u.email.toLowerCase() === p || u.name.toLowerCase() === p)?.id;
      });
      if (ids.every((id) => id !== undefined)) {
        const others = ids.filter((id) => id !== ctx.myId || ids.length === 1);
        operand = others.join(",");
      }
    } else if (operator === "is" && operand === "private") operand = "dm";
    else if (operator === "has") operand = operand.replace(/s$/, "");
    if (operator === "search") words.push(operand);
    else terms.push({ operator, operand, negated });
  }
  if (words.length > 0) terms.push({ operator: "search", operand: words.join(" "), negated: false });
  return terms;
}

function matches(name: string, query: string): boolean {
  const n = name.toLowerCase();
  const q = query.toLowerCase();
  return q === "" || n.startsWith(q) || n.split(/[\s_-]+/).some((w) => w.startsWith(q));
}

/** Suggestions for the text typed so far, best first, at most `limit`. */
export function suggest(text: string, ctx: SearchContext, limit = 8): Suggestion[] {
  const all = tokens(text);
  const endsWithSpace = /\s$/.test(text) || text === "";
  const last = endsWithSpace ? "" : (all.at(-1) ?? "");
  const before = endsWithSpace ? text : text.slice(0, text.length - last.length);
  const out: Suggestion[] = [];
  const add = (completed: string, description: string, partial = false) => {
    const full = `${before}${completed}`;
    if (!out.some((s) => s.text === full)) out.push({ text: full, description, partial });
  };
  const channelTerm = parseSearch(before, ctx).find((t) => t.operator === "channel" && /^\d+$/.test(t.operand));
  const operator = /^(-?)([a-zA-Z-]+):(.*)$/.exec(last);
  if (operator && OPERATORS.has(canonical(operator[2]!))) {
    const [, neg = "", rawOp = "", rawOperand = ""] = operator;
    const op = canonical(rawOp);
    const partial = decodeOperand(rawOperand);
    const typedOp = `${neg}${rawOp}:`;
    if (op === "channel") {
      for (const c of ctx.channels.filter((c) => matches(c.name, partial)))
        add(`${typedOp}${encodeOperand(c.name)} `, `${neg ? "Exclude" : "Messages in"} #${c.name}`);
    } else if (op === "topic") {
      const channelIds = channelTerm ? [Number(channelTerm.operand)] : ctx.channels.map((c) => c.id);
      for (const id of channelIds) for (const t of ctx.topicsOf(id).filter((t) => matches(t, partial))) add(`${typedOp}${encodeOperand(t)} `, `Topic ${t}`);
    } else if (op === "sender" || op === "dm" || op === "dm-including") {
      const verb = op === "sender" ? "Sent by" : op === "dm" ? "Direct messages with" : "Direct messages including";
      if (op === "sender" && matches("me", partial)) add(`${typedOp}me `, "Sent by me");
      for (const u of ctx.users.filter((u) => u.id !== ctx.myId && (matches(u.name, partial) || matches(u.email, partial))))
        add(`${typedOp}${encodeOperand(u.email)} `, `${verb} ${u.name}`);
    } else if (op === "is") {
      for (const [value, what] of IS_VALUES.filter(([v]) => matches(v, partial))) add(`${typedOp}${value} `, neg ? `Exclude ${what.toLowerCase()}` : what);
    } else if (op === "has") {
      for (const [value, what] of HAS_VALUES.filter(([v]) => matches(v, partial))) add(`${typedOp}${value} `, what);
    }
    return out.slice(0, limit);
  }
  // A plain word (or nothing yet): search for it, or an operator, channel or person it starts.
  if (last !== "") add(last, `Search for ${text.trim()}`);
  for (const [op, what] of OPERATOR_HELP) if (matches(op, last.replace(/^-/, ""))) add(op, what, true);
  if (last !== "") {
    for (const c of ctx.channels.filter((c) => matches(c.name, last))) add(`channel:${encodeOperand(c.name)} `, `Messages in #${c.name}`);
    for (const u of ctx.users.filter((u) => u.id !== ctx.myId && matches(u.name, last))) {
      add(`sender:${encodeOperand(u.email)} `, `Sent by ${u.name}`);
      add(`dm:${encodeOperand(u.email)} `, `Direct messages with ${u.name}`);
    }
    for (const [value, what] of IS_VALUES.filter(([v]) => v.startsWith(last.toLowerCase()))) add(`is:${value} `, what);
    for (const [value, what] of HAS_VALUES.filter(([v]) => v.startsWith(last.toLowerCase()))) add(`has:${value} `, what);
  }
  return out.slice(0, limit);
}
