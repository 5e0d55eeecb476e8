import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../appContext.js";
import { EMPTY_TOPIC_DISPLAY_NAME } from "../contract/constants.js";
import { channelSlug, decodeHashComponent, encodeHashComponent } from "../contract/hash.js";
import type { Realm, Stream } from "../db/schema.js";
import { webPublicStreamsEnabled } from "../lib/groupSettings.js";
import { realmOfRequest, realmUrl } from "../lib/realms.js";
import { visitorCanRead, visitorChannels } from "../lib/streamAccess.js";
import { archiveStore, type ArchiveMessageRow } from "../store/archive.js";
import { streamStore } from "../store/streams.js";
import { MAX_TOPIC_LENGTH } from "../models/limits.js";
import { escapeHtml } from "../util/html.js";
import { sendHtml, tooManyAttemptsPage } from "./webApp.js";
import { katexStylesheetUrl } from "./webAppAssets.js";

/**
 * The web-public archive (issue 38): server-rendered pages of the channels visitors may read, for
 * visitors without JavaScript and for search engines, after Zulip's zulip-archive layout.
 * - GET /archive/ : the organization's web-public channels;
 * - GET /archive/channel/<id>-<name>/ : a channel's topics, newest first (`?page=`);
 * - GET /archive/channel/<id>-<name>/topic/<topic>/ : a topic's messages, oldest first, 100 a
 *   page (`?page=`), with sender names, times and the stored rendered HTML (sanitized Markdown
 *   output, as the API serves it);
 * - GET /robots.txt : crawlers may read /archive/ (and its style sheets) and nothing else; all is
 *   disallowed while visitors are not let in.
 * Channel names and topics are written in the path as the web app's hash encodes them (no "%",
 * so no proxy re-decodes a "/" in a topic); the empty topic is ARCHIVE_EMPTY_TOPIC, which no
 * topic encodes to. Any other spelling of a page (an old channel name, a topic's case) redirects
 * to its canonical URL. The channel and topic pages are one route, /archive/channel/*, which
 * splits the raw path itself (see there).
 *
 * Who may read: streamAccess.ts decides (visitorCanRead), only while the organization lets
 * visitors in (enable_spectator_access). Everything else, a private channel, a public one that is
 * not web-public, a missing one, is the same 404, which names nothing. Credentials are ignored:
 * every reader sees what a visitor sees. Direct messages have no page. Each page counts against
 * the per-address limit of unauthenticated requests (the visitor API's `ip:` budget).
 */
export const ARCHIVE_PAGE_SIZE = 100;
export const ARCHIVE_TOPICS_PAGE_SIZE = 200;
/** The path segment of the empty topic ("general chat"): "." before non-hex digits never decodes. */
export const ARCHIVE_EMPTY_TOPIC = ".general-chat";

type ArchivedChannel = Stream & { recipient_id: number };

export const archiveChannelPath = (stream: Pick<Stream, "id" | "name">) => `/archive/channel/${channelSlug(stream.id, stream.name)}/`;
export const archiveTopicSegment = (topic: string) => (topic === "" ? ARCHIVE_EMPTY_TOPIC : encodeHashComponent(topic));
export const archiveTopicPath = (stream: Pick<Stream, "id" | "name">, topic: string) => `${archiveChannelPath(stream)}topic/${archiveTopicSegment(topic)}/`;

const withPage = (path: string, page: number) => (page > 1 ? `${path}?page=${page}` : path);
const topicDisplayName = (topic: string) => (topic === "" ? EMPTY_TOPIC_DISPLAY_NAME : topic);

export async function archivePages(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  /** The organization, when visitors are let in and this address is within its limit; else the answer already sent. */
  async function visitorRealm(request: FastifyRequest, reply: FastifyReply): Promise<Realm | FastifyReply> {
    const limit = await ctx.rateLimiter.hit(`ip:${request.ip}`, ctx.config.rateLimits.ip);
    if (limit.retryAfter > 0) return tooManyAttemptsPage(reply, limit.retryAfter);
    const realm = await realmOfRequest(ctx, request);
    if (!realm || realm.deactivated || !webPublicStreamsEnabled(realm)) return notFound(reply);
    return realm;
  }

  /** The channel of a `<id>-<name>` segment when visitors may read it. */
  /** A channel visitors may read, with its recipient (set on every channel once created). */
  async function readableChannel(realm: Realm, segment: string): Promise<ArchivedChannel | undefined> {
    const id = /^([1-9][0-9]{0,8})(?:-|$)/.exec(segment)?.[1];
    if (id === undefined) return undefined;
    const stream = await streamStore.getById(ctx.db.kysely, realm.id, Number(id));
    if (!stream || stream.recipient_id === null || !visitorCanRead(realm.id, stream)) return undefined;
    return { ...stream, recipient_id: stream.recipient_id };
  }

  app.get("/archive/", async (request, reply) => {
    const realm = await visitorRealm(request, reply);
    if (!isRealm(realm)) return realm;
    const channels = await visitorChannels(ctx.db.kysely, realm);
    if (channels.length === 0) return notFound(reply);
    return sendHtml(reply, 200, indexPage(realmUrl(ctx.config, realm), realm, channels));
  });

  // One wildcard route for a channel's and a topic's pages: a hash-encoded topic or channel name
  // can be far longer than Fastify's 100-character limit on a `:param`, and the raw path is split
  // here before percent-decoding, so that an encoded "/" stays inside its segment.
  app.get<{ Querystring: { page?: string } }>("/archive/channel/*", async (request, reply) => {
    const realm = await visitorRealm(request, reply);
    if (!isRealm(realm)) return realm;
    const segments = archiveSegments(request.url);
    const page = pageNumber(request.query.page);
    if (!segments || page === null) return notFound(reply);
    const stream = await readableChannel(realm, segments.channel);
    if (!stream) return notFound(reply);
    if (segments.topic === undefined) return channelRoute(realm, stream, segments.channel, page, reply);
    return topicRoute(realm, stream, segments.channel, segments.topic, page, reply);
  });

  async function channelRoute(realm: Realm, stream: ArchivedChannel, asked: string, page: number, reply: FastifyReply): Promise<FastifyReply> {
    const path = archiveChannelPath(stream);
    if (asked !== channelSlug(stream.id, stream.name)) return reply.redirect(withPage(path, page), 301);
    const topics = mergeTopics(await archiveStore.topics(ctx.db.kysely, realm.id, stream.recipient_id));
    const pages = Math.max(1, Math.ceil(topics.length / ARCHIVE_TOPICS_PAGE_SIZE));
    if (page > pages) return notFound(reply);
    const shown = topics.slice((page - 1) * ARCHIVE_TOPICS_PAGE_SIZE, page * ARCHIVE_TOPICS_PAGE_SIZE);
    return sendHtml(reply, 200, channelPage(realmUrl(ctx.config, realm), realm, stream, shown, topics.length, page, pages));
  }

  async function topicRoute(
    realm: Realm,
    stream: ArchivedChannel,
    askedChannel: string,
    segment: string,
    page: number,
    reply: FastifyReply,
  ): Promise<FastifyReply> {
    const asked = segment === ARCHIVE_EMPTY_TOPIC ? "" : decodeHashComponent(segment);
    if (asked === null || asked.length > MAX_TOPIC_LENGTH) return notFound(reply);
    const q = ctx.db.kysely;
    const summary = await archiveStore.topicSummary(q, realm.id, stream.recipient_id, asked);
    if (!summary) return notFound(reply);
    const path = archiveTopicPath(stream, summary.topic);
    const pages = Math.max(1, Math.ceil(summary.count / ARCHIVE_PAGE_SIZE));
    if (page > pages) return notFound(reply);
    if (askedChannel !== channelSlug(stream.id, stream.name) || segment !== archiveTopicSegment(summary.topic)) {
      return reply.redirect(withPage(path, page), 301);
    }
    const messages = await archiveStore.topicMessages(q, realm.id, stream.recipient_id, summary.topic, (page - 1) * ARCHIVE_PAGE_SIZE, ARCHIVE_PAGE_SIZE);
    return sendHtml(reply, 200, topicPage(realmUrl(ctx.config, realm), realm, stream, summary, messages, page, pages));
  }

  app.get("/robots.txt", async (request, reply) => {
    const limit = await ctx.rateLimiter.hit(`ip:${request.ip}`, ctx.config.rateLimits.ip);
    if (limit.retryAfter > 0)
      return reply
        .code(429)
        .header("Retry-After", String(Math.ceil(limit.retryAfter)))
        .type("text/plain")
        .send("Too many requests\n");
    const realm = await realmOfRequest(ctx, request);
    const open = realm !== undefined && !realm.deactivated && webPublicStreamsEnabled(realm) && (await visitorChannels(ctx.db.kysely, realm)).length > 0;
    return reply
      .type("text/plain; charset=utf-8")
      .header("Cache-Control", "public, max-age=3600")
      .send(open ? ROBOTS_OPEN : ROBOTS_CLOSED);
  });

  app.get("/static/archive.css", async (_request, reply) =>
    reply.type("text/css; charset=utf-8").header("Cache-Control", "public, max-age=3600").send(ARCHIVE_CSS),
  );
}

/** Longest match wins (RFC 9309): the archive and its style sheets are open, everything else closed. */
const ROBOTS_OPEN = "User-agent: *\nAllow: /archive/\nAllow: /static/pages.css\nAllow: /static/archive.css\nDisallow: /\n";
const ROBOTS_CLOSED = "User-agent: *\nDisallow: /\n";

/**
 * The segments of `/archive/channel/<channel>/` or `/archive/channel/<channel>/topic/<topic>/`
 * (the raw URL, each segment percent-decoded on its own); undefined for any other shape.
 */
function archiveSegments(url: string): { channel: string; topic?: string } | undefined {
  const path = url.split("?", 1)[0]!;
  const raw = path.slice("/archive/channel/".length).split("/");
  let parts: string[];
  try {
    parts = raw.map((part) => decodeURIComponent(part));
  } catch {
    return undefined;
  }
  const [channel, second, topic, last] = parts;
  if (parts.length === 2 && channel && second === "") return { channel };
  if (parts.length === 4 && channel && second === "topic" && topic && last === "") return { channel, topic };
  return undefined;
}

const isRealm = (value: Realm | FastifyReply): value is Realm => "string_id" in value;

/** `?page=`: absent is 1; anything but a positive integer is null (a 404). */
function pageNumber(raw: unknown): number | null {
  if (raw === undefined) return 1;
  if (typeof raw !== "string" || !/^[1-9][0-9]{0,5}$/.test(raw)) return null;
  return Number(raw);
}

interface Topic {
  topic: string;
  max_id: number;
  count: number;
  last_date: number;
}

/** Spellings differing only in case are one topic, named as its newest message has it; newest first. */
function mergeTopics(rows: readonly Topic[]): Topic[] {
  const byName = new Map<string, Topic>();
  for (const row of [...rows].sort((a, b) => a.max_id - b.max_id)) {
    const key = row.topic.toLowerCase();
    const seen = byName.get(key);
    byName.set(key, seen ? { ...row, count: seen.count + row.count, last_date: Math.max(seen.last_date, row.last_date) } : row);
  }
  return [...byName.values()].sort((a, b) => b.max_id - a.max_id);
}

/** "2026-11-29 12:43 UTC", and the ISO time for <time datetime>. */
function timeOf(seconds: number): { iso: string; text: string } {
  const iso = new Date(seconds * 1000).toISOString();
  return { iso: iso.replace(/\.\d{3}Z$/, "Z"), text: `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` };
}
const timeHtml = (seconds: number) => {
  const t = timeOf(seconds);
  return `<time datetime="${t.iso}">${t.text}</time>`;
};

/** Plain text of rendered HTML for a meta description: tags dropped (blocks as spaces), the usual entities read, at most `max` characters. */
function plainText(html: string, max: number): string {
  const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", "#x27": "'", nbsp: " " };
  const text = html
    .replace(/<\/?(?:p|div|br|li|ul|ol|pre|blockquote|h[1-6]|table|tr|td|th)\b[^>]*>/gi, " ")
    .replace(/<[^>]*>/g, "")
    .replace(/&(amp|lt|gt|quot|#39|#x27|nbsp);/g, (_m, name: string) => entities[name] ?? "")
    .replace(/\s+/g, " ")
    .trim();
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

const appTopicHash = (stream: Stream, topic: string) => `/#narrow/channel/${channelSlug(stream.id, stream.name)}/topic/${encodeHashComponent(topic)}`;

function pagination(path: string, page: number, pages: number, older: string, newer: string): string {
  if (pages <= 1) return "";
  const prev = page > 1 ? `<a rel="prev" href="${escapeHtml(withPage(path, page - 1))}">← ${older}</a>` : `<span></span>`;
  const next = page < pages ? `<a rel="next" href="${escapeHtml(withPage(path, page + 1))}">${newer} →</a>` : `<span></span>`;
  return `<nav class="pagination" aria-label="Pages">${prev}<span class="page-of">Page ${page} of ${pages}</span>${next}</nav>`;
}

function pageLinks(server: string, path: string, page: number, pages: number): string {
  return (
    (page > 1 ? `<link rel="prev" href="${escapeHtml(server + withPage(path, page - 1))}">` : "") +
    (page < pages ? `<link rel="next" href="${escapeHtml(server + withPage(path, page + 1))}">` : "")
  );
}

function indexPage(server: string, realm: Realm, channels: readonly Stream[]): string {
  const items = channels.map(
    (s) =>
      `<li class="archive-channel"><a href="${escapeHtml(archiveChannelPath(s))}"><span class="channel-name">#${escapeHtml(s.name)}</span></a>` +
      (s.rendered_description ? `<div class="rendered_markdown channel-description">${s.rendered_description}</div>` : "") +
      `</li>`,
  );
  const body =
    `<h1>${escapeHtml(realm.name)}</h1>` +
    `<p class="lead">The public channels of ${escapeHtml(realm.name)}, readable without an account.</p>` +
    `<ul class="archive-channels">${items.join("")}</ul>` +
    `<p class="hint"><a href="/">Open ${escapeHtml(realm.name)} in the app</a></p>`;
  return archiveShell({
    title: `${realm.name}`,
    description: `The public channels of ${realm.name}: ${channels.map((s) => `#${s.name}`).join(", ")}`,
    canonical: `${server}/archive/`,
    body,
  });
}

function channelPage(server: string, realm: Realm, stream: Stream, topics: readonly Topic[], total: number, page: number, pages: number): string {
  const path = archiveChannelPath(stream);
  const items = topics.map(
    (t) =>
      `<li class="archive-topic"><a href="${escapeHtml(archiveTopicPath(stream, t.topic))}"${t.topic === "" ? ' class="empty-topic"' : ""}>${escapeHtml(topicDisplayName(t.topic))}</a>` +
      `<span class="topic-meta">${t.count} ${t.count === 1 ? "message" : "messages"} · ${timeHtml(t.last_date)}</span></li>`,
  );
  const body =
    `<nav class="breadcrumb" aria-label="Breadcrumb"><a href="/archive/">${escapeHtml(realm.name)}</a></nav>` +
    `<h1>#${escapeHtml(stream.name)}</h1>` +
    (stream.rendered_description ? `<div class="rendered_markdown channel-description">${stream.rendered_description}</div>` : "") +
    `<p class="hint">${total} ${total === 1 ? "topic" : "topics"}, the most recently active first. ` +
    `<a href="/#narrow/channel/${escapeHtml(channelSlug(stream.id, stream.name))}">Open in the app</a></p>` +
    (items.length > 0 ? `<ul class="archive-topics">${items.join("")}</ul>` : `<p class="empty">No messages yet.</p>`) +
    pagination(path, page, pages, "More recent", "Older");
  return archiveShell({
    title: `#${stream.name}${page > 1 ? ` (page ${page})` : ""} | ${realm.name}`,
    description: plainText(stream.rendered_description, 155) || `Topics of #${stream.name} in ${realm.name}`,
    canonical: server + withPage(path, page),
    head: pageLinks(server, path, page, pages),
    body,
    math: true,
  });
}

function topicPage(
  server: string,
  realm: Realm,
  stream: Stream,
  summary: { topic: string; count: number },
  messages: readonly ArchiveMessageRow[],
  page: number,
  pages: number,
): string {
  const path = archiveTopicPath(stream, summary.topic);
  const name = topicDisplayName(summary.topic);
  const items = messages.map((m) => {
    const content = m.rendered_content ?? `<p>${escapeHtml(m.content)}</p>`;
    return (
      `<li class="archive-message" id="message-${m.id}"><div class="message-header">` +
      `<span class="sender-name">${escapeHtml(m.sender_full_name)}</span> ` +
      `<a class="message-time" href="#message-${m.id}">${timeHtml(m.date_sent)}</a></div>` +
      `<div class="rendered_markdown message-content">${content}</div></li>`
    );
  });
  const first = messages[0];
  const body =
    `<nav class="breadcrumb" aria-label="Breadcrumb"><a href="/archive/">${escapeHtml(realm.name)}</a> › ` +
    `<a href="${escapeHtml(archiveChannelPath(stream))}">#${escapeHtml(stream.name)}</a></nav>` +
    `<h1${summary.topic === "" ? ' class="empty-topic"' : ""}>${escapeHtml(name)}</h1>` +
    `<p class="hint">${summary.count} ${summary.count === 1 ? "message" : "messages"} · ` +
    `<a class="open-in-app" href="${escapeHtml(appTopicHash(stream, summary.topic))}">Open in the app</a></p>` +
    pagination(path, page, pages, "Earlier", "Later") +
    `<ol class="archive-messages">${items.join("")}</ol>` +
    pagination(path, page, pages, "Earlier", "Later");
  return archiveShell({
    title: `${name}${page > 1 ? ` (page ${page})` : ""} | #${stream.name} | ${realm.name}`,
    description: first ? plainText(first.rendered_content ?? first.content, 155) : `${name} in #${stream.name}`,
    canonical: server + withPage(path, page),
    head: pageLinks(server, path, page, pages),
    body,
    math: true,
  });
}

function notFound(reply: FastifyReply): FastifyReply {
  return sendHtml(
    reply,
    404,
    archiveShell({
      title: "Not found",
      head: `<meta name="robots" content="noindex">`,
      body: `<h1>Not found</h1><p>There is no public page here.</p><p class="hint"><a href="/login/">Log in</a></p>`,
    }),
  );
}

let katexUrl: string | null | undefined;
/** The web app's KaTeX stylesheet (webAppAssets.ts), looked up once. */
const katexStylesheet = () => (katexUrl === undefined ? (katexUrl = katexStylesheetUrl()) : katexUrl);

function archiveShell(page: { title: string; description?: string; canonical?: string; head?: string; body: string; math?: boolean }): string {
  return (
    `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="color-scheme" content="light dark"><title>${escapeHtml(page.title)}</title>` +
    (page.description ? `<meta name="description" content="${escapeHtml(page.description)}">` : "") +
    (page.canonical ? `<link rel="canonical" href="${escapeHtml(page.canonical)}">` : "") +
    (page.head ?? "") +
    `<link rel="icon" href="data:,"><link rel="stylesheet" href="/static/pages.css"><link rel="stylesheet" href="/static/archive.css">` +
    // Math in messages is KaTeX's HTML: the web app's KaTeX stylesheet (and fonts) styles it.
    (page.math && katexStylesheet() ? `<link rel="stylesheet" href="${escapeHtml(katexStylesheet()!)}">` : "") +
    `</head>` +
    `<body><main class="card archive-page">${page.body}</main></body></html>\n`
  );
}

const ARCHIVE_CSS = `.card.archive-page{max-width:860px;margin:4vh 16px}
.archive-page .breadcrumb{margin:0 0 8px;font-size:.9rem;color:var(--muted)}
.archive-page h1{overflow-wrap:anywhere}.archive-page .lead{color:var(--muted);margin:0 0 16px}
.empty-topic{font-style:italic}.empty{color:var(--muted)}
.archive-channels,.archive-topics,.archive-messages{list-style:none;margin:16px 0;padding:0}
.archive-channel{padding:12px 0;border-bottom:1px solid var(--border)}.archive-channel .channel-name{font-weight:600}
.channel-description{color:var(--muted);font-size:.95rem}.channel-description p{margin:4px 0}
.archive-topic{display:flex;flex-wrap:wrap;justify-content:space-between;gap:4px 16px;padding:10px 0;border-bottom:1px solid var(--border)}
.archive-topic a{font-weight:600;overflow-wrap:anywhere}.topic-meta{color:var(--muted);font-size:.85rem;font-variant-numeric:tabular-nums}
.archive-message{padding:12px 0;border-bottom:1px solid var(--border)}.archive-message:target{background:color-mix(in srgb,var(--accent) 10%,transparent)}
.message-header{display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 12px}.sender-name{font-weight:600}
.message-time{color:var(--muted);font-size:.85rem;text-decoration:none}.message-time:hover{text-decoration:underline}
.message-content{margin-top:4px;overflow-wrap:anywhere}.message-content p{margin:4px 0}.message-content ul{list-style:disc}.message-content ol{list-style:decimal}
.archive-channel:last-child,.archive-topic:last-child,.archive-message:last-child{border-bottom:0}
.rendered_markdown img{max-width:100%;height:auto}.rendered_markdown .message_inline_image img{max-height:300px}
.rendered_markdown pre{overflow-x:auto;padding:8px 10px;border:1px solid var(--border);border-radius:8px;background:color-mix(in srgb,var(--muted) 10%,transparent)}
.rendered_markdown code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
.rendered_markdown blockquote{margin:4px 0;padding-left:10px;border-left:3px solid var(--border);color:var(--muted)}
.rendered_markdown table{border-collapse:collapse}.rendered_markdown th,.rendered_markdown td{padding:4px 8px;border:1px solid var(--border)}
.rendered_markdown .user-mention,.rendered_markdown .user-group-mention{padding:0 3px;border-radius:4px;background:color-mix(in srgb,var(--accent) 15%,transparent)}
.pagination{display:flex;justify-content:space-between;align-items:center;gap:12px;margin:12px 0}.page-of{color:var(--muted);font-size:.9rem}
@media (max-width:640px){.card.archive-page{padding:16px;margin:12px 8px}}
`;
