import type { IncomingWebhookIntegration } from "./types.js";
import freshdesk from "./services/freshdesk.js";
import ifttt from "./services/ifttt.js";
import json from "./services/json.js";
import slackIncoming from "./services/slackIncoming.js";
import stripe from "./services/stripe.js";
import zapier from "./services/zapier.js";
import zendesk from "./services/zendesk.js";

/**
 * Every incoming-webhook integration this server serves, one import each, in name order. Adding
 * one: a module in services/ (see docs/integrations.md) and a line here.
 */
export const INTEGRATIONS: readonly IncomingWebhookIntegration[] = [
  freshdesk,
  ifttt,
  json,
  slackIncoming,
  stripe,
  zapier,
  zendesk,
];

const byName = new Map(INTEGRATIONS.map((integration) => [integration.name, integration]));

export function integrationByName(name: string): IncomingWebhookIntegration | undefined {
  return byName.get(name);
}
