import type { Linkifier } from "../linkifiers.js";

/** What the renderer needs from the database, looked up from collectReferences() output. */
export interface MentionableUser {
  id: number;
  full_name: string;
  email: string;
}

export interface ResolvedReferences {
  /** Active users by lowercased full name (ambiguous names: callers should omit them). */
  usersByName: Map<string, MentionableUser>;
  /** Active users by id (for `@**Name|id**` and `@**|id**`). */
  usersById: Map<number, MentionableUser>;
  /** Mentionable (non-system, non-deactivated) groups by lowercased name. */
  groupsByName: Map<string, { id: number; name: string }>;
  /** Channels the sender may link to, by lowercased name. */
  streamsByName: Map<string, { id: number; name: string }>;
  /** Realm emoji by name. */
  realmEmoji: Map<string, { id: number | string; name: string; source_url: string; deactivated: boolean }>;
}

export interface RenderOptions {
  /** The realm's URL without trailing slash ("https://chat.example.com"): links into it become relative. */
  realmUrl?: string;
  /** The sender's translate_emoticons setting (":)" → 🙂). */
  translateEmoticons?: boolean;
  /** Rewrites an external image or video URL for display (a camo proxy); default: unchanged. */
  mediaProxy?: (url: string) => string;
  /**
   * What the URL-preview job found for the message's links (Zulip's url_embed_data): a link with
   * an entry is previewed (null: looked at, nothing to show); without this map no link is.
   */
  urlEmbeds?: ReadonlyMap<string, UrlEmbed | null>;
  /** The organization's linkifiers, in order. */
  linkifiers?: readonly Linkifier[];
}

/** A web page's preview (Zulip's UrlEmbedData / UrlOEmbedData). */
export interface UrlEmbed {
  /** "video" and "photo" come from oEmbed; anything else is an Open Graph / generic page. */
  type: "video" | "photo" | "page";
  title: string | null;
  description: string | null;
  image: string | null;
  /** oEmbed videos: the player's HTML, which clients load on demand (data-id). */
  html: string | null;
}

export interface RenderResult {
  html: string;
  mentionedUserIds: Set<number>;
  mentionedGroupIds: Set<number>;
  wildcard: "stream" | "topic" | null;
  hasLink: boolean;
  hasImage: boolean;
  hasAttachment: boolean;
  isMeMessage: boolean;
  /** Upload path ids ("2/ab/cdef/file.png") linked from the message, for claiming attachments. */
  linkedUploadPaths: string[];
  /** External links that could get a website preview and have no `urlEmbeds` entry yet. */
  linksForPreview: string[];
}

export interface References {
  userNames: string[];
  userIds: number[];
  groupNames: string[];
  streamNames: string[];
  emojiNames: string[];
}

/** Per-render state shared by the plugins through markdown-it's `env`. */
export interface RenderEnv {
  refs: ResolvedReferences;
  options: RenderOptions;
  mentionedUserIds: Set<number>;
  mentionedGroupIds: Set<number>;
  streamWildcard: boolean;
  topicWildcard: boolean;
  hasImage: boolean;
  linksForPreview: string[];
  /** Set while the inline content being parsed sits inside a quote (mentions there are silent). */
  inQuote?: boolean;
}

export const emptyReferences = (): ResolvedReferences => ({
  usersByName: new Map(),
  usersById: new Map(),
  groupsByName: new Map(),
  streamsByName: new Map(),
  realmEmoji: new Map(),
});

/** The render state markdown-it passes around as `env`. */
export function renderEnv(state: { env: object }): RenderEnv {
  return state.env as unknown as RenderEnv;
}
