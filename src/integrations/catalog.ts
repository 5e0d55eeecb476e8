import { INTEGRATIONS } from "./registry.js";

/**
 * /register's realm_incoming_webhook_bots: every integration, with the event types its URL can
 * filter and its own URL options (Zulip's config_options, feature level 318), for the web app's
 * integrations page and bot settings.
 */
export function incomingWebhookBots(): Array<{
  name: string;
  display_name: string;
  all_event_types: string[] | null;
  config_options: Array<{ key: string; label: string; validator: string }>;
}> {
  return INTEGRATIONS.map((integration) => ({
    name: integration.name,
    display_name: integration.displayName,
    all_event_types: integration.allEventTypes ? [...integration.allEventTypes] : null,
    config_options: (integration.urlOptions ?? []).map((option) => ({
      key: option.name,
      label: option.label,
      validator: option.kind === "bool" ? "check_bool" : "check_string",
    })),
  }));
}
