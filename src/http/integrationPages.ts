import type { FastifyInstance, FastifyReply } from "fastify";
import type { AppContext } from "../appContext.js";
import { emptyReferences, renderMarkdown } from "../lib/markdown/index.js";
import { loadIntegrations } from "../integrations/load.js";
import type { IncomingWebhookIntegration, IntegrationCategory } from "../integrations/types.js";
import { escapeHtml } from "../util/html.js";
import { sendHtml } from "./webApp.js";

/**
 * The integrations pages, as Zulip's (reachable signed out; server HTML, no script):
 * - GET /integrations/ : every integration, by category, searchable (`?q=`, a plain GET form);
 * - GET /integrations/category/<category> : one category's;
 * - GET /integrations/doc/<name> : how to connect one: its setup text (Markdown, rendered as a
 *   message is: no raw HTML), the webhook URL's format, the event types `only_events` can
 *   filter and its own URL options.
 * Everything comes from src/integrations/registry.ts, so a new integration appears here unchanged.
 */
export async function integrationPages(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;

  app.get<{ Querystring: { q?: string } }>("/integrations/", async (request, reply) => {
    const query = typeof request.query.q === "string" ? request.query.q.slice(0, 100) : "";
    return catalogPage(reply, (await loadIntegrations()).docs, query, null);
  });

  app.get<{ Params: { category: string } }>("/integrations/category/:category", async (request, reply) => {
    const slug = request.params.category;
    const { docs } = await loadIntegrations();
    if (!docs.isCategory(slug)) return notFound(reply, `There is no integration category “${slug}”.`);
    return catalogPage(reply, docs, "", slug);
  });

  app.get<{ Params: { name: string } }>("/integrations/doc/:name", async (request, reply) => {
    const { integrationByName, docs } = await loadIntegrations();
    const integration = integrationByName(request.params.name);
    if (!integration) return notFound(reply, `There is no integration named “${request.params.name}”.`);
    return sendHtml(reply, 200, docPage(docs, ctx.config.externalUrl, integration));
  });

  app.get("/static/integrations.css", async (_request, reply) =>
    reply.type("text/css; charset=utf-8").header("Cache-Control", "public, max-age=3600").send(INTEGRATIONS_CSS),
  );
}

type IntegrationDocs = Awaited<ReturnType<typeof loadIntegrations>>["docs"];

function catalogPage(reply: FastifyReply, docs: IntegrationDocs, query: string, category: IntegrationCategory | null): FastifyReply {
  const { CATEGORY_NAMES } = docs;
  const all = docs.integrationsByDisplayName();
  const shown = all.filter((i) => (category === null || i.categories.includes(category)) && (query === "" || docs.matchesSearch(i, query)));
  const categoryLinks = [
    `<li><a href="/integrations/"${category === null ? ' aria-current="page"' : ""}>All <span class="count">${all.length}</span></a></li>`,
    ...docs
      .usedCategories()
      .map(
        (c) =>
          `<li><a href="/integrations/category/${c.slug}"${c.slug === category ? ' aria-current="page"' : ""}>${escapeHtml(c.name)} <span class="count">${c.count}</span></a></li>`,
      ),
  ];
  const cards = shown.map(
    (i) =>
      `<li class="integration" data-name="${escapeHtml(i.name)}"><a href="/integrations/doc/${encodeURIComponent(i.name)}">` +
      `<span class="integration-name">${escapeHtml(i.displayName)}</span>` +
      `<span class="integration-categories">${i.categories.map((c) => escapeHtml(CATEGORY_NAMES[c])).join(" · ")}</span></a></li>`,
  );
  const heading = category === null ? "Integrations" : `${CATEGORY_NAMES[category]} integrations`;
  const body =
    `<h1>${escapeHtml(heading)}</h1>` +
    `<p class="lead">Connect the services you use: each posts its notifications to a channel through an incoming webhook bot. ` +
    `Pick one to see how to set it up.</p>` +
    `<form class="integration-search" method="get" action="/integrations/" role="search">` +
    `<label for="integration-search" class="visually-hidden">Search integrations</label>` +
    `<input id="integration-search" type="search" name="q" placeholder="Search integrations" value="${escapeHtml(query)}" autocomplete="off">` +
    `<button type="submit">Search</button></form>` +
    `<div class="catalog"><nav aria-label="Categories"><h2>Categories</h2><ul class="categories">${categoryLinks.join("")}</ul></nav>` +
    `<section aria-label="Integrations">` +
    (query !== ""
      ? `<p class="hint results">${shown.length} ${shown.length === 1 ? "integration matches" : "integrations match"} “${escapeHtml(query)}”. <a href="/integrations/">Show all</a></p>`
      : "") +
    (shown.length === 0 ? `<p class="empty">No integrations found.</p>` : `<ul class="integrations">${cards.join("")}</ul>`) +
    `</section></div>`;
  return sendHtml(reply, 200, integrationsShell(heading, body));
}

function docPage(docs: IntegrationDocs, server: string, integration: IncomingWebhookIntegration): string {
  const { CATEGORY_NAMES } = docs;
  const setup = renderMarkdown(integration.setup, emptyReferences(), { realmUrl: server }).html;
  const events = integration.allEventTypes ?? [];
  const options = integration.urlOptions ?? [];
  const name = escapeHtml(integration.name);
  const body =
    `<p class="breadcrumb"><a href="/integrations/">← All integrations</a></p>` +
    `<h1>${escapeHtml(integration.displayName)}</h1>` +
    `<p class="integration-categories">${integration.categories
      .map((c) => `<a href="/integrations/category/${c}">${escapeHtml(CATEGORY_NAMES[c])}</a>`)
      .join(" · ")}</p>` +
    `<h2>Set it up</h2><ol class="steps">` +
    `<li>In the web app, go to <a href="/#settings/your-bots">Settings → Bots</a> and create a bot of type <strong>Incoming webhook</strong> (or use one you have).</li>` +
    `<li>Choose <strong>Generate URL for an integration</strong>, pick this bot, ${escapeHtml(integration.displayName)} and the channel, and copy the URL. ` +
    `Or write it yourself:<pre class="webhook-url"><code>${escapeHtml(docs.webhookUrlFormat(server, integration.name))}</code></pre>` +
    `with the bot’s API key as <code>api_key</code> and the channel’s name or ID as <code>stream</code>` +
    ` (without <code>stream</code>, the notifications come to the bot’s owner as direct messages). ` +
    `Add <code>topic=…</code> to send them all to one topic.</li>` +
    `</ol><h2>Connect the service</h2><div class="rendered_markdown setup">${setup}</div>` +
    `<h2>Event types</h2>` +
    (events.length > 0
      ? `<p>Add <code>only_events</code> or <code>exclude_events</code> to the URL, a JSON list of these event types (shell patterns with <code>*</code> and <code>?</code> work too), to choose which are posted:</p>` +
        `<ul class="event-types">${events.map((e) => `<li><code>${escapeHtml(e)}</code></li>`).join("")}</ul>`
      : `<p class="event-types-none">Every event ${escapeHtml(integration.displayName)} sends is posted; this integration has no event types to filter.</p>`) +
    (options.length > 0
      ? `<h2>URL options</h2><table class="url-options"><thead><tr><th scope="col">Parameter</th><th scope="col">What it does</th><th scope="col">Value</th></tr></thead><tbody>` +
        options
          .map(
            (o) =>
              `<tr><td><code>${escapeHtml(o.name)}</code></td><td>${escapeHtml(o.label)}</td><td>${o.kind === "bool" ? "<code>true</code> or <code>false</code>" : "text"}</td></tr>`,
          )
          .join("") +
        `</tbody></table>`
      : "") +
    `<p class="hint">The URL name of this integration is <code>${name}</code>, as in Zulip: a service set up for Zulip works unchanged.</p>`;
  return integrationsShell(integration.displayName, body);
}

function notFound(reply: FastifyReply, text: string): FastifyReply {
  return sendHtml(
    reply,
    404,
    integrationsShell("Not found", `<h1>Not found</h1><p>${escapeHtml(text)}</p><p><a href="/integrations/">All integrations</a></p>`),
  );
}

/** The sign-in pages' look (pages.css) on a wider card. */
function integrationsShell(title: string, body: string): string {
  return (
    `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="color-scheme" content="light dark"><title>${escapeHtml(title)} | Parley</title><link rel="icon" href="data:,">` +
    `<link rel="stylesheet" href="/static/pages.css"><link rel="stylesheet" href="/static/integrations.css"></head>` +
    `<body><main class="card integrations-page">${body}</main></body></html>\n`
  );
}

const INTEGRATIONS_CSS = `.card.integrations-page{max-width:960px;margin:4vh 16px}
.integrations-page h2{font-size:1.05rem;color:var(--text);margin:24px 0 8px}
.integrations-page .lead{color:var(--muted);margin:0 0 16px}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.integration-search{display:flex;gap:8px;margin:0 0 20px}.integration-search>input{flex:1;min-width:0;width:auto}
.integration-search>button[type=submit]{flex:none;width:auto;margin:0;padding:10px 16px}
.catalog{display:grid;grid-template-columns:200px 1fr;gap:24px;align-items:start}
.catalog nav h2{margin-top:0;font-size:.85rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
.categories{list-style:none;margin:0;padding:0}.categories a{display:flex;justify-content:space-between;gap:8px;padding:6px 10px;border-radius:8px;color:inherit;text-decoration:none}
.categories a:hover{background:color-mix(in srgb,var(--accent) 10%,transparent)}.categories a[aria-current=page]{background:var(--accent);color:var(--on-accent);font-weight:600}
.categories .count{color:inherit;opacity:.7;font-variant-numeric:tabular-nums}.categories a[aria-current=page] .count{opacity:1}
.integrations{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:12px}
.integration a{display:flex;flex-direction:column;gap:4px;height:100%;padding:14px;border:1px solid var(--border);border-radius:10px;color:inherit;text-decoration:none}
.integration a:hover,.integration a:focus-visible{border-color:var(--accent)}.integration a:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
.integration-name{font-weight:600}.integration-categories{color:var(--muted);font-size:.85rem;margin:0}
.integrations-page .breadcrumb{margin:0 0 8px;font-size:.9rem}
.steps{padding-left:1.4em}.steps li{margin:8px 0}
.integrations-page pre{overflow-x:auto;padding:10px;border:1px solid var(--border);border-radius:8px;background:color-mix(in srgb,var(--muted) 10%,transparent);white-space:pre-wrap;word-break:break-all}
.integrations-page code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
.setup p:first-child{margin-top:0}.setup p:last-child{margin-bottom:0}
.event-types{columns:2 220px;padding-left:1.2em}
.url-options{border-collapse:collapse;width:100%}.url-options th,.url-options td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--border)}
.empty{color:var(--muted)}
@media (max-width:640px){.catalog{grid-template-columns:1fr;gap:12px}.categories{display:flex;flex-wrap:wrap;gap:4px}.categories a{border:1px solid var(--border)}
.integrations{grid-template-columns:1fr 1fr}.card.integrations-page{padding:16px;margin:12px 8px}}
`;
