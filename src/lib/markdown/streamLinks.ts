import type { MarkdownIt, StateInline } from "markdown-it";
import { escapeAttr, escapeText } from "./escape.js";
import { mentionMayStartAt } from "./mentions.js";
import { type RenderEnv, renderEnv } from "./types.js";
import { channelSlug, serverHashEncode } from "../../contract/hash.js";
import { group } from "../../util/defined.js";

/** #**channel**, #**channel>topic** and #**channel>topic@message_id** (Zulip's StreamPattern family). */
export const CHANNEL_LINK_RE = /^#\*\*([^*]+)\*\*/;
const MESSAGE_LINK_RE = /^([^*>]+)>([^*]+)@(\d+)$/;
const TOPIC_LINK_RE = /^([^*>]+)>([^*]+)$/;

function link(className: string, streamId: number | null, href: string, text: string): string {
  const idAttr = streamId === null ? "" : ` data-stream-id="${streamId}"`;
  return `<a class="${className}"${idAttr} href="${escapeAttr(href)}">${escapeText(text)}</a>`;
}

function render(env: RenderEnv, inner: string): { html: string } | null {
  const message = MESSAGE_LINK_RE.exec(inner);
  const topic = message ? null : TOPIC_LINK_RE.exec(inner);
  const streamName = message?.[1] ?? topic?.[1] ?? inner;
  const stream = env.refs.streamsByName.get(streamName.toLowerCase());
  if (!stream) return null;
  const base = `/#narrow/channel/${channelSlug(stream.id, stream.name, serverHashEncode)}`;
  if (message) {
    const href = `${base}/topic/${serverHashEncode(group(message, 2))}/near/${message[3]}`;
    return { html: link("message-link", null, href, `#${stream.name} > ${message[2]} @ 💬`) };
  }
  if (topic) {
    const href = `${base}/topic/${serverHashEncode(group(topic, 2))}`;
    return { html: link("stream-topic", stream.id, href, `#${stream.name} > ${topic[2]}`) };
  }
  return { html: link("stream", stream.id, base, `#${stream.name}`) };
}

function channelLinkRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x23 /* # */ || !mentionMayStartAt(state.src, state.pos)) return false;
  const m = CHANNEL_LINK_RE.exec(state.src.slice(state.pos, state.posMax));
  if (!m) return false;
  const rendered = render(renderEnv(state), group(m, 1));
  if (!rendered) return false;
  if (!silent) {
    state.push("zulip_html", "", 0).content = rendered.html;
  }
  state.pos += m[0].length;
  return true;
}

export function streamLinksPlugin(md: MarkdownIt): void {
  md.inline.ruler.before("emphasis", "zulip_channel_link", channelLinkRule);
}
