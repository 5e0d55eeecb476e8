import { type Catalogue, type Emoji, searchEmoji } from "./emojiSearch.js";

/**
 * The compose box's typeahead, as Zulip's composebox_typeahead works: what is being typed before
 * the cursor (a token: "@name", "@_name", "#channel", "#**channel>topic", ":emoji"), the people,
 * groups, wildcards, channels, topics or emoji it matches, and the Zulip syntax a choice inserts.
 * Pure: the people, channels and emoji are passed in.
 */
export type Token =
  | { kind: "mention"; silent: boolean; query: string; start: number }
  | { kind: "channel"; query: string; start: number }
  | { kind: "topic-link"; channel: string; query: string; start: number }
  | { kind: "emoji"; query: string; start: number };

export interface Person {
  user_id: number;
  full_name: string;
  email: string;
  is_active?: boolean;
}
export interface Group {
  id: number;
  name: string;
  description?: string;
  is_system_group?: boolean;
  deactivated?: boolean;
}
export interface Channel {
  stream_id: number;
  name: string;
}

export type Suggestion =
  | { kind: "person"; person: Person }
  | { kind: "group"; group: Group }
  | { kind: "wildcard"; name: string; description: string }
  | { kind: "channel"; channel: Channel }
  | { kind: "topic"; channel: string; topic: string }
  | { kind: "emoji"; emoji: Emoji };

/** Characters after which a "@", "#" or ":" starts a token (as in Zulip: start, space, brackets, quotes). */
const BOUNDARY = `(?:^|[\\s(\\[{"'>])`;
const MENTION = new RegExp(`${BOUNDARY}@(_?)(\\*\\*)?([^@*\\n]{0,40})$`);
const TOPIC_LINK = new RegExp(`${BOUNDARY}#\\*\\*([^*>\\n]+)>([^*\\n]{0,60})$`);
const CHANNEL = new RegExp(`${BOUNDARY}#(\\*\\*)?([^#*>\\n]{0,40})$`);
const EMOJI = new RegExp(`${BOUNDARY}:([\\w+-]{2,40})$`);

/** The token being typed at the end of `before` (the text before the cursor), or null. */
export function findToken(before: string): Token | null {
  let m = TOPIC_LINK.exec(before);
  if (m) return { kind: "topic-link", channel: m[1]!, query: m[2]!, start: before.length - m[0].length + m[0].indexOf("#") };
  m = MENTION.exec(before);
  if (m && !/^\s/.test(m[3]!) && m[3]!.split(" ").length <= 3) {
    return { kind: "mention", silent: m[1] === "_", query: m[3]!, start: before.length - m[0].length + m[0].indexOf("@") };
  }
  m = CHANNEL.exec(before);
  // "# " at the start of a line is a heading, not a channel.
  if (m && !/^\s/.test(m[2]!) && m[2]!.split(" ").length <= 3) return { kind: "channel", query: m[2]!, start: before.length - m[0].length + m[0].indexOf("#") };
  m = EMOJI.exec(before);
  if (m) return { kind: "emoji", query: m[1]!, start: before.length - m[0].length + m[0].indexOf(":") };
  return null;
}

/** Lower case without diacritics, so that "jose" finds "José". */
export function fold(text: string): string {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase();
}

/**
 * How well `name` matches `query`: 0 the whole name, 1 a prefix of the name, 2 a prefix of one of
 * its words (the query's words in order from there), -1 not at all.
 */
function matchRank(name: string, query: string): number {
  const n = fold(name).trim();
  const q = fold(query).trim();
  if (q === "") return 1;
  if (n === q) return 0;
  if (n.startsWith(q)) return 1;
  const words = n.split(/[\s_\-.,()]+/);
  for (let i = 1; i < words.length; i++) if (words.slice(i).join(" ").startsWith(q)) return 2;
  return -1;
}

function ranked<T>(items: Iterable<T>, rank: (item: T) => number, name: (item: T) => string): T[] {
  const out: Array<{ item: T; rank: number }> = [];
  for (const item of items) {
    const r = rank(item);
    if (r >= 0) out.push({ item, rank: r });
  }
  out.sort((a, b) => a.rank - b.rank || name(a.item).localeCompare(name(b.item)));
  return out.map((o) => o.item);
}

export const WILDCARDS: Array<{ name: string; description: string; channelOnly: boolean }> = [
  { name: "all", description: "Notify everyone", channelOnly: false },
  { name: "everyone", description: "Notify everyone", channelOnly: false },
  { name: "channel", description: "Notify channel", channelOnly: true },
  { name: "topic", description: "Notify topic", channelOnly: true },
];

/** People, groups and wildcards for "@query": wildcards first (as Zulip ranks them), then people, then groups. */
export function matchMentions(
  query: string,
  data: { people: Iterable<Person>; groups: Iterable<Group>; inChannel: boolean; silent: boolean },
  limit = 8,
): Suggestion[] {
  const wildcards: Suggestion[] = data.silent
    ? []
    : WILDCARDS.filter((w) => (data.inChannel || !w.channelOnly) && matchRank(w.name, query) >= 0).map((w) => ({
        kind: "wildcard",
        name: w.name,
        description: w.description,
      }));
  const people = ranked(
    [...data.people].filter((p) => p.is_active !== false),
    (p) => {
      const byName = matchRank(p.full_name, query);
      if (byName >= 0) return byName;
      return query !== "" && fold(p.email).startsWith(fold(query)) ? 3 : -1;
    },
    (p) => p.full_name,
  ).map((person): Suggestion => ({ kind: "person", person }));
  const groups = ranked(
    [...data.groups].filter((g) => !g.is_system_group && !g.deactivated),
    (g) => matchRank(g.name, query),
    (g) => g.name,
  ).map((group): Suggestion => ({ kind: "group", group }));
  return [...wildcards, ...people, ...groups].slice(0, limit);
}

/**
 * People for a direct message's recipient field: active, not already chosen, matching the query by
 * name (whole, prefix, word prefix) or by email prefix; best match first, then by name.
 */
export function matchRecipients(query: string, people: Iterable<Person & { is_bot?: boolean }>, chosen: readonly number[], limit = 8): Person[] {
  const q = fold(query).trim();
  if (q === "") return [];
  return ranked(
    [...people].filter((p) => p.is_active !== false && !chosen.includes(p.user_id)),
    (p) => {
      const byName = matchRank(p.full_name, q);
      if (byName >= 0) return byName;
      return fold(p.email).startsWith(q) ? 3 : -1;
    },
    (p) => p.full_name,
  ).slice(0, limit);
}

export function matchChannels(query: string, channels: Iterable<Channel>, limit = 8): Suggestion[] {
  return ranked(
    channels,
    (c) => matchRank(c.name, query),
    (c) => c.name,
  )
    .slice(0, limit)
    .map((channel) => ({ kind: "channel", channel }));
}

/** A channel's topics (newest first) matching `query`; the order of recency is kept. */
export function matchTopics(query: string, topics: readonly string[], limit = 8): string[] {
  const q = fold(query).trim();
  const prefix = topics.filter((t) => fold(t).startsWith(q));
  const inside = topics.filter((t) => !fold(t).startsWith(q) && fold(t).includes(q));
  return [...prefix, ...inside].slice(0, limit);
}

export function matchEmoji(query: string, catalogue: Catalogue, limit = 8): Suggestion[] {
  return searchEmoji(catalogue, query, limit).map((emoji) => ({ kind: "emoji", emoji }));
}

/** Zulip's mention syntax: `@**Name**`, `@**Name|id**` when someone else has the same name, `@_` silent, `@*group*`. */
function mentionSyntax(suggestion: Suggestion, silent: boolean, people: Iterable<Person>): string {
  const at = silent ? "@_" : "@";
  if (suggestion.kind === "wildcard") return `@**${suggestion.name}**`;
  if (suggestion.kind === "group") return `${at}*${suggestion.group.name}*`;
  if (suggestion.kind !== "person") throw new Error("not a mention");
  const { full_name, user_id } = suggestion.person;
  let same = 0;
  for (const p of people) if (p.full_name.toLowerCase() === full_name.toLowerCase()) same++;
  return same > 1 ? `${at}**${full_name}|${user_id}**` : `${at}**${full_name}**`;
}

/** The text that replaces a token for a chosen suggestion (followed by a space). */
export function completionText(token: Token, suggestion: Suggestion, people: Iterable<Person>): string {
  switch (suggestion.kind) {
    case "person":
    case "group":
    case "wildcard":
      return `${mentionSyntax(suggestion, token.kind === "mention" && token.silent, people)} `;
    case "channel":
      return `#**${suggestion.channel.name}** `;
    case "topic":
      return `#**${suggestion.channel}>${suggestion.topic}** `;
    case "emoji":
      return `:${suggestion.emoji.name}: `;
  }
}

/** The compose text with the token (from its start to the cursor) replaced, and where the cursor goes. */
export function applyCompletion(text: string, cursor: number, token: Token, insertion: string): { text: string; cursor: number } {
  let after = text.slice(cursor);
  // A space already after the cursor is not doubled.
  if (insertion.endsWith(" ") && after.startsWith(" ")) after = after.slice(1);
  const next = text.slice(0, token.start) + insertion + after;
  return { text: next, cursor: token.start + insertion.length };
}
