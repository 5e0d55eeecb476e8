import type { IncomingWebhookIntegration } from "./types.js";
import catalog from "./catalog.json" with { type: "json" };

/** One integration as /register's realm_incoming_webhook_bots lists it. */
export interface IncomingWebhookBot {
  name: string;
  display_name: string;
  all_event_types: string[] | null;
  config_options: Array<{ key: string; label: string; validator: string }>;
}

/**
 * An integration's entry: its name, the event types its URL can filter and its own URL options
 * (Zulip's config_options, feature level 318), for the web app's integrations page and bot settings.
 */
export function incomingWebhookBot(integration: IncomingWebhookIntegration): IncomingWebhookBot {
  return {
    name: integration.name,
    display_name: integration.displayName,
    all_event_types: integration.allEventTypes ? [...integration.allEventTypes] : null,
    config_options: (integration.urlOptions ?? []).map((option) => ({
      key: option.name,
      label: option.label,
      validator: option.kind === "bool" ? "check_bool" : "check_string",
    })),
  };
}

/**
 * /register's realm_incoming_webhook_bots: every integration's entry, read from catalog.json so
 * that a /register does not load the integrations' modules (integrations/load.ts).
 * scripts/integrations-doc.mjs writes the file from src/integrations/registry.ts (`npm run
 * integrations-doc`; `npm run check` and test/integrations/catalog.test.ts fail when it is stale).
 */
export function incomingWebhookBots(): readonly IncomingWebhookBot[] {
  return catalog;
}
