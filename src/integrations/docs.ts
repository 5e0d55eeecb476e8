import { INTEGRATIONS } from "./registry.js";
import type { IncomingWebhookIntegration, IntegrationCategory } from "./types.js";

/**
 * What people read about the integrations, from the registry alone: the category names of the
 * /integrations/ page (Zulip's CATEGORIES, in its order), the webhook URL's format, and
 * docs/integrations.md (written by `npm run integrations-doc`, checked by `npm run check`). A new
 * integration in registry.ts shows up in all of them without a change here.
 */
export const CATEGORY_NAMES: Readonly<Record<IntegrationCategory, string>> = {
  "meta-integration": "Integration frameworks",
  bots: "Interactive bots",
  "continuous-integration": "Continuous integration",
  "customer-support": "Customer support",
  deployment: "Deployment",
  entertainment: "Entertainment",
  communication: "Communication",
  financial: "Financial",
  hr: "Human resources",
  marketing: "Marketing",
  misc: "Miscellaneous",
  monitoring: "Monitoring",
  "project-management": "Project management",
  productivity: "Productivity",
  "version-control": "Version control",
};

export function isCategory(slug: string): slug is IntegrationCategory {
  return Object.hasOwn(CATEGORY_NAMES, slug);
}

/** Every integration, by display name (as Zulip's catalog lists them). */
export function integrationsByDisplayName(): IncomingWebhookIntegration[] {
  return [...INTEGRATIONS].sort((a, b) => a.displayName.localeCompare(b.displayName, "en", { sensitivity: "base" }) || a.name.localeCompare(b.name));
}

/** The categories that have at least one integration, in Zulip's order, with how many each has. */
export function usedCategories(): Array<{ slug: IntegrationCategory; name: string; count: number }> {
  return (Object.keys(CATEGORY_NAMES) as IntegrationCategory[])
    .map((slug) => ({ slug, name: CATEGORY_NAMES[slug], count: INTEGRATIONS.filter((i) => i.categories.includes(slug)).length }))
    .filter((c) => c.count > 0);
}

/** Whether an integration matches a search: every word in its name, display name or category names. */
export function matchesSearch(integration: IncomingWebhookIntegration, query: string): boolean {
  const haystack = [integration.name, integration.displayName, ...integration.categories.map((c) => CATEGORY_NAMES[c])].join(" ").toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== "")
    .every((word) => haystack.includes(word));
}

/** The webhook URL of an integration, as its page shows it: `{server}/api/v1/external/<name>?api_key=…&stream=…`. */
export function webhookUrlFormat(server: string, name: string): string {
  return `${server.replace(/\/+$/, "")}/api/v1/external/${name}?api_key=…&stream=…`;
}

const escapeCell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

/** docs/integrations.md: the table of every integration, then how to add one. */
export function integrationsMarkdown(): string {
  const rows = integrationsByDisplayName().map((i) => {
    const events = i.allEventTypes && i.allEventTypes.length > 0 ? i.allEventTypes.map((e) => `\`${escapeCell(e)}\``).join(", ") : "(not filtered)";
    const options = (i.urlOptions ?? []).map((o) => `\`${o.name}\``).join(", ");
    return (
      `| ${escapeCell(i.displayName)} | \`/api/v1/external/${i.name}\` | ${i.categories.map((c) => CATEGORY_NAMES[c]).join(", ")} | ${events} |` +
      ` ${options || "—"} |`
    );
  });
  return `# Incoming webhook integrations

<!-- Generated from src/integrations/registry.ts by \`npm run integrations-doc\`; \`npm run check\` fails when it is out of date. Do not edit by hand. -->

Parley serves Zulip's incoming webhook integrations at Zulip's URLs, so a service set up for
Zulip posts to Parley unchanged:

\`\`\`
{server}/api/v1/external/<name>?api_key=<bot's API key>&stream=<channel name or ID>
\`\`\`

- \`api_key\`: the API key of an incoming webhook bot (Settings → Bots). HTTP Basic
  authentication with the bot's email and key works too.
- \`stream\`: the channel, by name or ID. Without it the message goes to the bot's owner as a
  direct message.
- \`topic\`: replaces the topic the integration would choose.
- \`only_events\` / \`exclude_events\`: JSON lists of event types (shell patterns such as
  \`"pull_request*"\`) to post or to skip, for integrations that name their event types below.
- The integration's own URL options, listed below.

In the web app, Settings → Bots → **Generate URL for an integration** writes the URL for you.
Each integration has a page at \`/integrations/doc/<name>\` on your server, and all of them are
listed at \`/integrations/\`.

| Integration | URL | Category | Event types (\`only_events\`) | URL options |
| --- | --- | --- | --- | --- |
${rows.join("\n")}

${INTEGRATIONS.length} integrations.

## Adding an integration

1. Read Zulip's integration (\`zerver/webhooks/<name>/view.py\`, its \`tests.py\` and fixtures):
   its output is the specification, topic and message byte for byte.
2. Write one module, \`src/integrations/services/<name>.ts\` (the file name in camelCase; \`name\`
   is Zulip's URL name), whose default export is \`defineIntegration({...})\`
   (src/integrations/types.ts): \`name\`, \`displayName\` (as Zulip shows it), \`webhookName\` when
   Zulip's differs, \`categories\`, \`allEventTypes\` (what \`only_events\` can filter; set
   \`eventType\` on each message as Zulip's \`complete_event_type\`), \`urlOptions\`, \`setup\` (Markdown:
   what to do in the service) and \`handle(hook)\`, which reads the payload through
   \`hook.payload\` (src/integrations/payload.ts: a missing or mistyped field is a 400 naming it)
   and returns the messages, \`null\` for an event to ignore, or throws
   \`hook.unsupported(eventType)\`.
3. Add one import line and one array line to src/integrations/registry.ts, in name order.
4. Add test payloads shaped like the service's documented webhook under
   \`test/integrations/fixtures/<name>/<event>.json\` and a test,
   \`test/integrations/<name>.test.ts\`, with \`useWebhookHarness()\` and \`itPosts()\` from
   test/integrations/support.ts: every event type with Zulip's exact topic and message, one
   ignored or unsupported event, and one malformed payload (a 400, nothing posted).
5. Run \`npm run integrations-doc\` to update this file and src/integrations/catalog.json (what
   \`/register\` lists, read without loading the integrations' modules).

The integration then appears on \`/integrations/\`, has its page, and is offered by the URL
generator (through \`/register\`'s \`realm_incoming_webhook_bots\`) without any other change.
`;
}
