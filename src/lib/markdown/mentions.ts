import type { MarkdownIt, StateInline } from "markdown-it";
import { escapeAttr, escapeText } from "./escape.js";
import { type RenderEnv, renderEnv } from "./types.js";
import { group } from "../../util/defined.js";

/**
 * @**Full Name**, @**Full Name|id**, @**|id** (user), @*group* (user group), their silent forms
 * @_**…** / @_*…*, and the wildcards @**all** / @**everyone** / @**channel** / @**stream** and
 * @**topic**. Mentions inside quotes are silent. Unknown names stay plain text.
 */
export const STREAM_WILDCARDS = new Set(["all", "everyone", "stream", "channel"]);
export const TOPIC_WILDCARD = "topic";
export const USER_MENTION_RE = /^@(_?)\*\*([^*]+)\*\*/;
export const GROUP_MENTION_RE = /^@(_?)\*([^*]+)\*/;
const ID_SYNTAX_RE = /^(.+)?\|(\d+)$/;

/** Zulip's BEFORE_MENTION_ALLOWED_REGEX: start of text, whitespace or one of ' " ( , : < */
export function mentionMayStartAt(src: string, pos: number): boolean {
  return pos === 0 || /[\s'"(,:<]/.test(src.charAt(pos - 1));
}

function span(classes: string, attrs: string, text: string): string {
  return `<span class="${classes}"${attrs}>${escapeText(text)}</span>`;
}

function renderUserMention(env: RenderEnv, name: string, silent: boolean): string | null {
  if (STREAM_WILDCARDS.has(name)) {
    if (!silent) env.streamWildcard = true;
    return span(`user-mention channel-wildcard-mention${silent ? " silent" : ""}`, ' data-user-id="*"', silent ? name : `@${name}`);
  }
  if (name === TOPIC_WILDCARD) {
    if (!silent) env.topicWildcard = true;
    return span(`topic-mention${silent ? " silent" : ""}`, "", silent ? name : `@${name}`);
  }
  const idSyntax = ID_SYNTAX_RE.exec(name);
  const user = idSyntax ? env.refs.usersById.get(Number(idSyntax[2])) : env.refs.usersByName.get(name.toLowerCase());
  if (!user || (idSyntax?.[1] !== undefined && idSyntax[1] !== user.full_name)) return null;
  if (!silent) env.mentionedUserIds.add(user.id);
  return span(`user-mention${silent ? " silent" : ""}`, ` data-user-id="${escapeAttr(String(user.id))}"`, silent ? user.full_name : `@${user.full_name}`);
}

function renderGroupMention(env: RenderEnv, name: string, silent: boolean): string | null {
  const group = env.refs.groupsByName.get(name.toLowerCase());
  if (!group) return null;
  if (!silent) env.mentionedGroupIds.add(group.id);
  return span(`user-group-mention${silent ? " silent" : ""}`, ` data-user-group-id="${group.id}"`, silent ? group.name : `@${group.name}`);
}

function mentionRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x40 /* @ */ || !mentionMayStartAt(state.src, state.pos)) return false;
  const env = renderEnv(state);
  const rest = state.src.slice(state.pos, state.posMax);
  const quiet = env.inQuote === true;
  for (const [re, render] of [
    [USER_MENTION_RE, renderUserMention],
    [GROUP_MENTION_RE, renderGroupMention],
  ] as const) {
    const m = re.exec(rest);
    if (!m) continue;
    // Validation runs (silent) must not record mentions: render against a scratch copy.
    const target = silent ? { ...env, mentionedUserIds: new Set<number>(), mentionedGroupIds: new Set<number>() } : env;
    const html = render(target, group(m, 2), m[1] === "_" || quiet);
    if (html === null) continue;
    if (!silent) state.push("zulip_html", "", 0).content = html;
    state.pos += m[0].length;
    return true;
  }
  return false;
}

export function mentionsPlugin(md: MarkdownIt): void {
  md.inline.ruler.before("emphasis", "zulip_mention", mentionRule);
}
