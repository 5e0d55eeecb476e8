/**
 * Zulip's URL hashes (web/src/hash_util.ts and internal_url.ts in Zulip; see WEBAPP.md): the
 * component encoding, the narrow grammar with every historical alias, and the slugs for channels
 * and people. Pure functions: the lookups of channels and users are passed in. The component
 * encoding and the operator aliases are the API contract's (src/contract/), shared with the server.
 */
import { HASH_OPERATOR_ALIASES } from "../../src/contract/constants.js";
import { channelSlug, decodeHashComponent, encodeHashComponent, OVERLAY_HASHES } from "../../src/contract/hash.js";

export { channelSlug, decodeHashComponent, encodeHashComponent };

export interface Term {
  operator: string;
  /** Channel: its id as text; dm/dm-including: comma-separated user ids; sender: one id; else the text. */
  operand: string;
  negated: boolean;
}

export interface Lookup {
  myId: number;
  channelById(id: number): { name: string } | undefined;
  channelIdByName(name: string): number | undefined;
  userById(id: number): { full_name: string } | undefined;
  userIdByEmail(email: string): number | undefined;
}

export type Route =
  | { kind: "home" }
  | { kind: "inbox" }
  | { kind: "recent" }
  | { kind: "feed" }
  | { kind: "narrow"; terms: Term[] }
  | { kind: "overlay"; name: string; path: string[] }
  | { kind: "invalid" };

const PEOPLE_OPERATORS = new Set(["dm", "dm-including", "sender"]);

const OVERLAYS = new Set(OVERLAY_HASHES);

/** Where a location hash leads. Aliases (#recent_topics, #all_messages) map to their new names. */
export function parseHash(hash: string, lookup: Lookup): Route {
  const body = hash.replace(/^#/, "");
  if (body === "") return { kind: "home" };
  const first = body.split("/")[0]!;
  if (first === "inbox") return { kind: "inbox" };
  if (first === "recent" || first === "recent_topics") return { kind: "recent" };
  if (first === "feed" || first === "all_messages") return { kind: "feed" };
  if (first === "narrow") {
    const terms = parseNarrow(body, lookup);
    return terms ? { kind: "narrow", terms } : { kind: "invalid" };
  }
  if (OVERLAYS.has(first)) return { kind: "overlay", name: first === "streams" ? "channels" : first, path: body.split("/").slice(1) };
  return { kind: "home" };
}

/** The terms of a `narrow/...` hash, canonicalized; null for an invalid one. */
export function parseNarrow(hash: string, lookup: Lookup): Term[] | null {
  const parts = hash.replace(/^#/, "").split("/");
  if (parts[0] !== "narrow") return null;
  const terms: Term[] = [];
  for (let i = 1; i < parts.length; i += 2) {
    const rawOperator = parts[i]!;
    if (rawOperator === "") break; // a trailing "/" is harmless
    const rawOperand = parts[i + 1];
    if (rawOperand === undefined) return null;
    const negated = rawOperator.startsWith("-");
    const decodedOperator = decodeHashComponent(negated ? rawOperator.slice(1) : rawOperator);
    if (decodedOperator === null) return null;
    const lowered = decodedOperator.toLowerCase();
    const operator = HASH_OPERATOR_ALIASES[lowered] ?? lowered;
    const operand = parseOperand(operator, rawOperand, lookup);
    if (operand === null) return null;
    if (operand === "" && operator !== "topic") return null;
    terms.push({ operator, operand, negated });
  }
  return terms;
}

function parseOperand(operator: string, raw: string, lookup: Lookup): string | null {
  if (PEOPLE_OPERATORS.has(operator)) {
    const slug = /^[\d,]+/.exec(raw);
    if (slug && /^\d/.test(slug[0])) {
      const ids = slug[0]
        .split(",")
        .filter((s) => s !== "")
        .map(Number);
      const others = ids.filter((id) => id !== lookup.myId);
      return (others.length > 0 ? others : ids).join(",");
    }
    const text = decodeHashComponent(raw);
    if (text === null) return null;
    if (text === "me") return String(lookup.myId);
    // An email (or several, comma-separated): as ids when known.
    const ids = text.split(",").map((email) => lookup.userIdByEmail(email.trim()));
    return ids.every((id) => id !== undefined) ? ids.filter((id) => id !== lookup.myId || ids.length === 1).join(",") : text;
  }
  const text = decodeHashComponent(raw);
  if (text === null) return null;
  if (operator === "channel") {
    const slug = /^(\d+)(-.*)?$/.exec(text);
    if (slug && lookup.channelById(Number(slug[1]))) return slug[1]!;
    const byName = lookup.channelIdByName(text);
    return byName !== undefined ? String(byName) : text;
  }
  if (operator === "is" && text === "private") return "dm";
  if (operator === "has") return text.replace(/s$/, "");
  return text;
}

/** A person's name as it decorates a slug: runs of spaces, quotes, %, /, <, >, backticks, controls → "-". */
function nameSlug(name: string): string {
  // eslint-disable-next-line no-control-regex
  return name.replace(/[\s"%/<>`\u0000-\u001f\u007f-\u009f]+/g, "-");
}

function peopleSlug(ids: number[], lookup: Lookup): string {
  if (ids.length === 1) {
    const user = lookup.userById(ids[0]!);
    return `${ids[0]}-${user ? nameSlug(user.full_name) : "user"}`;
  }
  return `${ids.join(",")}-group`;
}

/** The hash of a narrow, as Zulip's web app writes it. */
export function narrowHash(terms: readonly Term[], lookup: Lookup): string {
  let hash = "#narrow";
  for (const term of terms) {
    let operand: string;
    if (term.operator === "channel" && /^\d+$/.test(term.operand)) {
      const channel = lookup.channelById(Number(term.operand));
      operand = channel ? channelSlug(Number(term.operand), channel.name) : encodeHashComponent(term.operand);
    } else if (PEOPLE_OPERATORS.has(term.operator) && /^\d+(,\d+)*$/.test(term.operand)) {
      operand = peopleSlug(term.operand.split(",").map(Number), lookup);
    } else {
      operand = encodeHashComponent(term.operand);
    }
    hash += `/${term.negated ? "-" : ""}${encodeHashComponent(term.operator)}/${operand}`;
  }
  return hash;
}

/** The narrow as GET /messages wants it (ids as numbers). */
export function apiNarrow(terms: readonly Term[]): Array<{ operator: string; operand: string | number | number[]; negated?: boolean }> {
  return terms.map((term) => {
    let operand: string | number | number[] = term.operand;
    if (term.operator === "channel" && /^\d+$/.test(term.operand)) operand = Number(term.operand);
    else if ((term.operator === "dm" || term.operator === "dm-including") && /^\d+(,\d+)*$/.test(term.operand)) {
      operand = term.operand.split(",").map(Number);
      if (term.operator === "dm-including") operand = operand[0]!;
    } else if (term.operator === "sender" && /^\d+$/.test(term.operand)) operand = Number(term.operand);
    else if ((term.operator === "near" || term.operator === "id" || term.operator === "with") && /^\d+$/.test(term.operand)) operand = Number(term.operand);
    return term.negated ? { operator: term.operator, operand, negated: true } : { operator: term.operator, operand };
  });
}
