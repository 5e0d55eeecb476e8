import { buildEngine } from "./engine.js";
import { EMOJI_NAME_RE } from "./emoji.js";
import { GROUP_MENTION_RE, STREAM_WILDCARDS, TOPIC_WILDCARD, USER_MENTION_RE } from "./mentions.js";
import type { References, RenderEnv, RenderOptions, RenderResult, ResolvedReferences } from "./types.js";
import { uploadPathId } from "./urls.js";
import { group } from "../../util/defined.js";

export type { MentionableUser, References, RenderOptions, RenderResult, ResolvedReferences } from "./types.js";
export { emptyReferences } from "./types.js";

/** Rendered HTML longer than this is refused (Zulip: MAX_MESSAGE_LENGTH * 100). */
const MAX_RENDERED_LENGTH = 1_000_000;

class MarkdownRenderingError extends Error {}

// markdown-it and the plugins are set up by the first message rendered, not at start.
let engine: ReturnType<typeof buildEngine> | undefined;

/**
 * Names the content may refer to, for the caller to look up before rendering. A cheap scan:
 * it over-approximates (code blocks are not excluded), which only costs a lookup.
 */
export function collectReferences(content: string): References {
  const userNames = new Set<string>();
  const userIds = new Set<number>();
  const groupNames = new Set<string>();
  const streamNames = new Set<string>();
  const emojiNames = new Set<string>();
  for (let i = content.indexOf("@"); i >= 0; i = content.indexOf("@", i + 1)) {
    const rest = content.slice(i, i + 400);
    const user = USER_MENTION_RE.exec(rest);
    if (user) {
      const name = group(user, 2);
      const idSyntax = /^(.+)?\|(\d+)$/.exec(name);
      if (idSyntax) userIds.add(Number(idSyntax[2]));
      else if (!STREAM_WILDCARDS.has(name) && name !== TOPIC_WILDCARD) userNames.add(name);
      continue;
    }
    const groupMention = GROUP_MENTION_RE.exec(rest);
    if (groupMention) groupNames.add(group(groupMention, 2));
  }
  for (const m of content.matchAll(/#\*\*([^*>]+)(?:>[^*]*)?\*\*/g)) streamNames.add(group(m, 1));
  for (let i = content.indexOf(":"); i >= 0; i = content.indexOf(":", i + 1)) {
    const m = EMOJI_NAME_RE.exec(content.slice(i, i + 100));
    if (m) emojiNames.add(group(m, 1));
  }
  return {
    userNames: [...userNames],
    userIds: [...userIds],
    groupNames: [...groupNames],
    streamNames: [...streamNames],
    emojiNames: [...emojiNames],
  };
}

/** Every href of the output (Zulip counts all <a> elements for has_link, channel links included). */
function collectHrefs(html: string): string[] {
  return [...html.matchAll(/<a [^>]*?href="([^"]*)"/g)].map((m) => group(m, 1).replaceAll("&amp;", "&").replaceAll("&quot;", '"'));
}

/** Zulip's is_status_message: "/me …" on one line that renders to a single paragraph. */
function isMeMessage(content: string, html: string): boolean {
  return content.startsWith("/me ") && !content.includes("\n") && html.startsWith("<p>") && html.endsWith("</p>") && html.indexOf("<p>", 1) < 0;
}

/** Renders message source to Zulip's HTML. Throws MarkdownRenderingError for oversize output. */
export function renderMarkdown(content: string, refs: ResolvedReferences, options: RenderOptions = {}): RenderResult {
  const env: RenderEnv = {
    refs,
    options: { ...options, realmUrl: options.realmUrl?.replace(/\/+$/, "") },
    mentionedUserIds: new Set(),
    mentionedGroupIds: new Set(),
    streamWildcard: false,
    topicWildcard: false,
    hasImage: false,
    linksForPreview: [],
  };
  engine ??= buildEngine();
  const html = engine.render(content.replaceAll("\r\n", "\n"), env as unknown as Record<string, unknown>).replace(/\n+$/, "");
  if (html.length > MAX_RENDERED_LENGTH) throw new MarkdownRenderingError("Rendered message is too long");
  const hrefs = collectHrefs(html);
  const uploads = [...new Set(hrefs.map((href) => uploadPathId(href, env.options.realmUrl)).filter((id): id is string => id !== null))];
  return {
    html,
    mentionedUserIds: env.mentionedUserIds,
    mentionedGroupIds: env.mentionedGroupIds,
    wildcard: env.streamWildcard ? "stream" : env.topicWildcard ? "topic" : null,
    hasLink: hrefs.length > 0,
    hasImage: env.hasImage,
    hasAttachment: uploads.length > 0,
    isMeMessage: isMeMessage(content, html),
    linkedUploadPaths: uploads,
    linksForPreview: env.linksForPreview,
  };
}
