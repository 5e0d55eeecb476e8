import type { MarkdownIt, StateCore, Token } from "markdown-it";
import { findLinkifierMatches } from "../linkifiers.js";
import { autoLinkTokens, textToken } from "./autolink.js";
import { renderEnv } from "./types.js";

/**
 * The organization's linkifiers (Zulip's LinkifierPattern): their matches in text outside links
 * and code become links; what they link is not processed further.
 */
function linkifierRule(state: StateCore): void {
  const env = renderEnv(state);
  const linkifiers = env.options.linkifiers ?? [];
  if (linkifiers.length === 0) return;
  for (const block of state.tokens) {
    if (block.type !== "inline" || !block.children) continue;
    const result: Token[] = [];
    let linkDepth = 0;
    for (const token of block.children) {
      if (token.type === "link_open") linkDepth++;
      if (token.type === "link_close") linkDepth--;
      if (token.type !== "text" || linkDepth > 0 || token.content === "") {
        result.push(token);
        continue;
      }
      let last = 0;
      for (const m of findLinkifierMatches(linkifiers, token.content, env.options.realmUrl)) {
        if (m.index > last) result.push(textToken(state, token.content.slice(last, m.index)));
        result.push(...autoLinkTokens(state, m.url, m.text));
        last = m.end;
      }
      result.push(last === 0 ? token : textToken(state, token.content.slice(last)));
    }
    block.children = result;
  }
}

export function linkifiersPlugin(md: MarkdownIt): void {
  md.core.ruler.before("zulip_autolink", "zulip_linkifiers", linkifierRule);
}
