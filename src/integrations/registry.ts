import type { IncomingWebhookIntegration } from "./types.js";
import azuredevops from "./services/azuredevops.js";
import bitbucket2 from "./services/bitbucket2.js";
import bitbucket3 from "./services/bitbucket3.js";
import json from "./services/json.js";
import slackIncoming from "./services/slackIncoming.js";

/**
 * Every incoming-webhook integration this server serves, one import each, in name order. Adding
 * one: a module in services/ (see docs/integrations.md) and a line here.
 */
export const INTEGRATIONS: readonly IncomingWebhookIntegration[] = [azuredevops, bitbucket2, bitbucket3, json, slackIncoming];

const byName = new Map(INTEGRATIONS.map((integration) => [integration.name, integration]));

export function integrationByName(name: string): IncomingWebhookIntegration | undefined {
  return byName.get(name);
}
