import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CATEGORY_NAMES, integrationsMarkdown } from "../../src/integrations/docs.js";
import { INTEGRATIONS } from "../../src/integrations/registry.js";
import { useTestServer } from "../support/testApp.js";

// The integrations pages (src/http/integrationPages.ts), signed out as a visitor sees them: the
// catalog lists every integration of the registry by category and can be searched; each
// integration's page shows its setup text (rendered safely), the URL's format, its event types
// and URL options. docs/integrations.md is what the registry gives.
const t = useTestServer();

async function page(path: string): Promise<{ status: number; html: string; type: string; csp: string }> {
  const res = await fetch(`${t.baseUrl}${path}`, { headers: { Accept: "text/html" } });
  return { status: res.status, html: await res.text(), type: res.headers.get("content-type") ?? "", csp: res.headers.get("content-security-policy") ?? "" };
}

/** The names of the integration cards a catalog page lists, in order. */
const listed = (html: string) => [...html.matchAll(/<li class="integration" data-name="([^"]+)"/g)].map((m) => m[1]);

describe("the integrations catalog", () => {
  it("lists every integration of the registry by display name, with the categories that have any, signed out", async () => {
    const res = await page("/integrations/");
    expect(res.status).toBe(200);
    expect(res.type).toBe("text/html; charset=utf-8");
    expect(res.csp).toContain("script-src 'self'");
    const byDisplayName = [...INTEGRATIONS].sort((a, b) => a.displayName.localeCompare(b.displayName, "en", { sensitivity: "base" }));
    expect(listed(res.html)).toEqual(byDisplayName.map((i) => i.name));
    expect(res.html).toContain('<a href="/integrations/doc/json"><span class="integration-name">JSON formatter</span>');
    expect(res.html).toContain('<a href="/integrations/" aria-current="page">All <span class="count">');
    // Every category with an integration, none without.
    for (const [slug, name] of Object.entries(CATEGORY_NAMES)) {
      const used = INTEGRATIONS.some((i) => (i.categories as readonly string[]).includes(slug));
      expect(res.html.includes(`href="/integrations/category/${slug}"`), `${slug} (${name})`).toBe(used);
    }
    expect(res.html).toContain('<form class="integration-search" method="get" action="/integrations/" role="search">');
  });

  it("searches by name, display name and category, every word", async () => {
    expect(listed((await page("/integrations/?q=json")).html)).toEqual(["json"]);
    expect(listed((await page("/integrations/?q=SLACK%20webhook")).html)).toEqual(["slack_incoming"]);
    // A category's name finds its integrations.
    expect(listed((await page("/integrations/?q=frameworks")).html)).toContain("slack_incoming");
    const none = await page("/integrations/?q=%3Cscript%3Enothing");
    expect(none.status).toBe(200);
    expect(listed(none.html)).toEqual([]);
    expect(none.html).toContain("No integrations found.");
    // The query is shown back escaped.
    expect(none.html).toContain('value="&lt;script&gt;nothing"');
    expect(none.html).not.toContain("<script>");
  });

  it("shows one category at Zulip's URL, and a 404 for an unknown one", async () => {
    const misc = await page("/integrations/category/misc");
    expect(misc.status).toBe(200);
    expect(misc.html).toContain("<h1>Miscellaneous integrations</h1>");
    expect(misc.html).toContain('<a href="/integrations/category/misc" aria-current="page">Miscellaneous');
    expect(listed(misc.html)).toEqual(INTEGRATIONS.filter((i) => i.categories.includes("misc")).map((i) => i.name));
    expect(listed(misc.html)).toContain("json");
    expect(listed(misc.html)).not.toContain("slack_incoming");
    const unknown = await page("/integrations/category/%3Cb%3Enope");
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain("There is no integration category “&lt;b&gt;nope”.");
  });

  it("serves its style sheet", async () => {
    const res = await fetch(`${t.baseUrl}/static/integrations.css`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(await res.text()).toContain(".card.integrations-page");
  });
});

describe("an integration's page", () => {
  it("shows the setup text rendered, the URL's format with this server, and that events are not filtered", async () => {
    const res = await page("/integrations/doc/json");
    expect(res.status).toBe(200);
    expect(res.html).toContain("<title>JSON formatter | Parley</title>");
    expect(res.html).toContain("<h1>JSON formatter</h1>");
    expect(res.html).toContain('<a href="/integrations/category/misc">Miscellaneous</a>');
    expect(res.html).toContain(`<pre class="webhook-url"><code>${t.config.externalUrl}/api/v1/external/json?api_key=…&amp;stream=…</code></pre>`);
    expect(res.html).toContain('<div class="rendered_markdown setup"><p>Point any service that can send a JSON webhook at the URL');
    expect(res.html).toContain("this integration has no event types to filter");
    expect(res.html).not.toContain("<h2>URL options</h2>");
    expect(res.html).toContain('<a href="/#settings/your-bots">Settings → Bots</a>');
  });

  it("lists the event types and URL options of every integration that has them", async () => {
    for (const integration of INTEGRATIONS) {
      const res = await page(`/integrations/doc/${integration.name}`);
      expect(res.status, integration.name).toBe(200);
      for (const event of integration.allEventTypes ?? [])
        expect(res.html).toContain(`<li><code>${event.replaceAll("&", "&amp;").replaceAll("<", "&lt;")}</code></li>`);
      for (const option of integration.urlOptions ?? []) expect(res.html).toContain(`<tr><td><code>${option.name}</code></td>`);
      expect(res.html).toContain(`/api/v1/external/${integration.name}?api_key=`);
    }
  });

  it("renders the setup Markdown without raw HTML, and answers 404 for an unknown integration", async () => {
    // The setup text goes through the message renderer: no raw HTML reaches the page.
    const { renderMarkdown, emptyReferences } = await import("../../src/lib/markdown/index.js");
    expect(renderMarkdown("<script>alert(1)</script> **bold**", emptyReferences()).html).toBe(
      "<p>&lt;script&gt;alert(1)&lt;/script&gt; <strong>bold</strong></p>",
    );
    const unknown = await page("/integrations/doc/%3Cimg%20src%3Dx%3E");
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain("There is no integration named “&lt;img src=x&gt;”.");
    expect(unknown.html).not.toContain("<img");
  });
});

describe("docs/integrations.md", () => {
  it("is what the registry gives (npm run integrations-doc)", () => {
    const text = readFileSync(new URL("../../docs/integrations.md", import.meta.url), "utf8");
    expect(text).toBe(integrationsMarkdown());
    for (const integration of INTEGRATIONS) expect(text).toContain(`\`/api/v1/external/${integration.name}\``);
  });
});
