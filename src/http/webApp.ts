import { PassThrough, type Readable, type Transform } from "node:stream";
import zlib from "node:zlib";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createSession } from "../actions/login.js";
import type { AppContext } from "../appContext.js";
import type { Realm } from "../db/schema.js";
import { realmStore } from "../store/realms.js";
import { userStore } from "../store/users.js";
import { escapeHtml } from "../util/html.js";
import { preferredEncoding, webAppShell, webAppAssets, type ContentEncoding, type WebAppAssets } from "./webAppAssets.js";
import { registerForPage, registerForVisitorPage } from "./webAppState.js";
import { realmOfRequest, realmServesHost } from "../lib/realms.js";
import { checkVisitorsAllowed } from "../lib/streamAccess.js";
import { MissingAuthenticationError } from "../lib/errors.js";
import { checkFormToken, clearFormToken, DEV_LOGIN_FORM, formToken, formTokenField } from "./formCsrf.js";
import { checkSameOriginForm, sessionUse, sessionUser, setSessionCookies } from "./webSession.js";

/**
 * The web app's pages, outside the API: `/` (the app for a signed-in user; for a visitor without
 * an account, when the organization lets visitors read its web-public channels, the app in its
 * read-only visitor mode, as Zulip's home view serves spectators; else a redirect to /login/,
 * which loginPage.ts serves), `/devlogin/` in
 * development mode (pick a user, no password) and the app's built files under /static/webapp/.
 * Every page has a Content-Security-Policy that allows no inline script. The sign-in forms carry
 * a double-submit CSRF token (formCsrf.ts).
 */
export async function webAppPages(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  // Read on the first page or file asked for (each text file also gzip- and brotli-compressed),
  // so that a server whose clients are all API clients never holds them.
  let loaded: WebAppAssets | undefined;
  const webApp = () => (loaded ??= webAppAssets());

  app.get("/", async (request, reply) => {
    const found = await sessionUser(ctx, request);
    if (found) {
      const page = { csrfToken: found.csrfToken, userId: found.user.id };
      return sendApp(request, reply, page, () => registerForPage(app, request, found.csrfToken));
    }
    const realm = await realmOfRequest(ctx, request);
    if (!realm && ctx.config.rootDomain !== undefined) return sendNoOrganizationPage(reply, request.host);
    if (!(await visitorsWelcome(ctx, realm))) return reply.redirect("/login/", 302);
    return sendApp(request, reply, { csrfToken: "", userId: 0, visitor: true }, () => registerForVisitorPage(app, request));
  });

  /** The app's shell at once, then the /register answer `state` builds, in one compressed stream. */
  function sendApp(request: FastifyRequest, reply: FastifyReply, page: Parameters<typeof webAppShell>[1], state: () => Promise<string | null>) {
    const assets = webApp();
    const shell = webAppShell(assets, page);
    if (!assets.entry) return sendHtml(reply, 200, shell.head + shell.tail(null));
    // The head goes out now (the browser starts loading the script), the state when it is built;
    // compressed as a stream, flushed after the head so that it is not held back.
    const encoding = preferredEncoding(request.headers["accept-encoding"]);
    const body: Transform = encoding ? htmlCompressor(encoding) : new PassThrough();
    reply.header("Vary", "Accept-Encoding");
    if (encoding) reply.header("Content-Encoding", encoding);
    body.write(shell.head);
    if (encoding) (body as zlib.Gzip).flush(encoding === "br" ? zlib.constants.BROTLI_OPERATION_FLUSH : zlib.constants.Z_SYNC_FLUSH);
    sendHtml(reply, 200, body);
    body.on("error", () => {}); // the browser went away
    void state().then((json) => {
      if (!body.destroyed) body.end(shell.tail(json));
    });
    return reply;
  }

  app.get("/devlogin/", async (request, reply) => {
    if (!ctx.config.dev) return sendHtml(reply, 404, simplePage("Not found", "<p>Development login is off (PARLEY_DEV=1 turns it on).</p>"));
    return sendHtml(reply, 200, await devLoginPage(ctx, request, formToken(ctx, request, reply, DEV_LOGIN_FORM)));
  });

  app.post<{ Body: { email?: unknown } }>("/devlogin/", async (request, reply) => {
    if (!ctx.config.dev) return sendHtml(reply, 404, simplePage("Not found", "<p>Development login is off (PARLEY_DEV=1 turns it on).</p>"));
    checkSameOriginForm(ctx, request);
    checkFormToken(request, DEV_LOGIN_FORM);
    const email = typeof request.body?.email === "string" ? request.body.email : "";
    // With a root domain, only the accounts of the host's organization.
    const hostRealm = ctx.config.rootDomain === undefined ? undefined : await realmOfRequest(ctx, request);
    const candidates =
      ctx.config.rootDomain === undefined
        ? await userStore.listByApiEmail(ctx.db.kysely, email)
        : hostRealm
          ? await userStore.listByEmailInRealm(ctx.db.kysely, hostRealm.id, email)
          : [];
    const user = candidates.find((u) => u.is_active && !u.is_bot);
    const realm = user && (hostRealm ?? (await realmStore.getById(ctx.db.kysely, user.realm_id)));
    if (!user || !realm || realm.deactivated)
      return sendHtml(reply, 400, simplePage("No such user", `<p>No active user ${escapeHtml(email)}. <a href="/devlogin/">Back</a></p>`));
    setSessionCookies(ctx, reply, await createSession(ctx, user, sessionUse(request)));
    clearFormToken(ctx, reply, DEV_LOGIN_FORM);
    return reply.redirect("/", 302);
  });

  app.get<{ Params: { file: string } }>("/static/webapp/:file", async (request, reply) => {
    const file = webApp().files.get(request.params.file);
    if (!file) return reply.status(404).type("text/plain; charset=utf-8").send("Not found");
    // File names carry a content hash: cache for a year. Text goes out as the build compressed it.
    reply.type(file.type).header("Cache-Control", "public, max-age=31536000, immutable");
    if (!file.gzip && !file.br) return reply.send(file.data);
    reply.header("Vary", "Accept-Encoding");
    const available = (["br", "gzip"] as const).filter((e) => (e === "br" ? file.br : file.gzip));
    const encoding = preferredEncoding(request.headers["accept-encoding"], available);
    if (!encoding) return reply.send(file.data);
    return reply.header("Content-Encoding", encoding).send(encoding === "br" ? file.br : file.gzip);
  });

  app.get("/static/pages.css", async (_request, reply) =>
    reply.type("text/css; charset=utf-8").header("Cache-Control", "public, max-age=3600").send(PAGES_CSS),
  );
}

/**
 * Whether `/` without a session serves the app to a visitor: the organization allows spectators
 * (enable_spectator_access, web-public channels on) and has a web-public channel to read, the
 * same test the API makes of a visitor's requests (mount.ts).
 */
async function visitorsWelcome(ctx: AppContext, realm: Realm | undefined): Promise<boolean> {
  if (!realm) return false;
  try {
    await checkVisitorsAllowed(ctx.db.kysely, realm);
    return true;
  } catch (error) {
    if (error instanceof MissingAuthenticationError) return false;
    throw error;
  }
}

/**
 * A compressor for the streamed HTML of `/`: fast settings (it runs per page load, on the state
 * too): brotli 5 and gzip 6 take little time and still shrink the page several times.
 */
function htmlCompressor(encoding: ContentEncoding): Transform {
  return encoding === "br"
    ? zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT } })
    : zlib.createGzip({ level: 6 });
}

/** Whether the request is a browser's form submission or navigation (it asks for HTML). */
export function wantsHtml(request: FastifyRequest): boolean {
  return /\btext\/html\b/.test(request.headers.accept ?? "");
}

async function devLoginPage(ctx: AppContext, request: FastifyRequest, csrfToken: string): Promise<string> {
  const items: string[] = [];
  for (const realm of await realmStore.list(ctx.db.kysely)) {
    if (realm.deactivated || !realmServesHost(ctx.config, realm, request.host)) continue;
    const users = (await userStore.listInRealm(ctx.db.kysely, realm.id)).filter((u) => u.is_active && !u.is_bot);
    users.sort((a, b) => a.full_name.localeCompare(b.full_name));
    items.push(`<h2>${escapeHtml(realm.name)}</h2><div class="users">`);
    for (const user of users) {
      items.push(
        `<form method="post" action="/devlogin/">${formTokenField(csrfToken)}<input type="hidden" name="email" value="${escapeHtml(user.email)}">` +
          `<button type="submit" class="user">${escapeHtml(user.full_name)}<small>${escapeHtml(user.email)}</small></button></form>`,
      );
    }
    items.push(`</div>`);
  }
  return simplePage("Development login", `<h1>Log in as</h1>${items.join("")}<p class="hint"><a href="/login/">Log in with a password</a></p>`);
}

/**
 * With a root domain, a host whose subdomain names no organization of this server (Zulip's
 * invalid-subdomain page): `/` and `/login/` answer 404 with this page.
 */
export function sendNoOrganizationPage(reply: FastifyReply, host: string): FastifyReply {
  return sendHtml(reply, 404, simplePage("No organization", `<p>There is no Parley organization at ${escapeHtml(host)}.</p>`));
}

export function simplePage(title: string, body: string): string {
  return (
    `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="color-scheme" content="light dark"><title>${escapeHtml(title)} | Parley</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/static/pages.css"></head>` +
    `<body><main class="card">${body}</main></body></html>\n`
  );
}

/**
 * No inline scripts or style sheets, nothing from other origins, no framing. Inline style
 * attributes are allowed: KaTeX sizes the parts of a formula with them (`style="height:1.2em"`)
 * in the message HTML the server renders. That HTML cannot carry an attribute a user wrote
 * (Markdown with raw HTML off; KaTeX with trust off, so no \htmlStyle), and a style attribute can
 * neither run script nor load from another origin (img-src, font-src) nor read the page, as a
 * `<style>` element's selectors could: those stay blocked.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "style-src-attr 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export function sendHtml(reply: FastifyReply, status: number, html: string | Readable): FastifyReply {
  return reply
    .status(status)
    .type("text/html; charset=utf-8")
    .header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    .header("Cache-Control", "no-store")
    .header("Referrer-Policy", "same-origin")
    .send(html);
}

/** A page's 429: its Retry-After, and the wait in words. */
export function tooManyAttemptsPage(reply: FastifyReply, retryAfter: number): FastifyReply {
  const seconds = Math.ceil(retryAfter);
  reply.header("Retry-After", String(seconds));
  return sendHtml(reply, 429, simplePage("Too many attempts", `<h1>Too many attempts</h1><p>Try again in ${seconds} seconds.</p>`));
}

const PAGES_CSS = `:root{color-scheme:light dark;--bg:#f5f5f7;--card:#fff;--text:#1d1d1f;--muted:#6e6e73;--accent:#2f6fde;--on-accent:#fff;--error:#c62828;--border:#d2d2d7}
@media (prefers-color-scheme:dark){:root{--bg:#17181a;--card:#222326;--text:#ececf0;--muted:#9a9aa2;--accent:#6d9cf2;--on-accent:#10131a;--error:#ff7b72;--border:#3a3b40}}
*{box-sizing:border-box}body{margin:0;min-height:100vh;display:flex;align-items:flex-start;justify-content:center;background:var(--bg);color:var(--text);font:16px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif}
.card{margin:8vh 16px;padding:24px;width:100%;max-width:420px;background:var(--card);border:1px solid var(--border);border-radius:12px}
h1{font-size:1.4rem;margin:0 0 16px}h2{font-size:1rem;color:var(--muted);margin:20px 0 8px}
label{display:block;margin:12px 0 4px;font-weight:600}input{width:100%;padding:10px;font:inherit;color:inherit;background:transparent;border:1px solid var(--border);border-radius:8px}
button{font:inherit;cursor:pointer}form>button[type=submit]{margin-top:16px;width:100%;padding:10px;border:0;border-radius:8px;background:var(--accent);color:var(--on-accent);font-weight:600}
.error{color:var(--error);margin:0 0 8px}.hint{color:var(--muted);font-size:.9rem;margin-top:16px}a{color:var(--accent)}
.external-logins{list-style:none;margin:16px 0 0;padding:0}.external-login{display:flex;align-items:center;justify-content:center;gap:8px;margin:8px 0;padding:10px;border:1px solid var(--border);border-radius:8px;color:inherit;text-decoration:none;font-weight:600}
.external-login:hover,.external-login:focus-visible{border-color:var(--accent)}.external-login:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
#desktop-data{font-family:monospace;font-size:.8rem}
.users form{margin:0}.users .user{display:block;width:100%;text-align:left;margin:4px 0;padding:8px 10px;border:1px solid var(--border);border-radius:8px;background:transparent;color:inherit}
.user small{display:block;color:var(--muted)}
`;
