import type { IncomingWebhookIntegration } from "./types.js";
import gitea from "./services/gitea.js";
import gitlab from "./services/gitlab.js";
import gogs from "./services/gogs.js";
import json from "./services/json.js";
import slackIncoming from "./services/slackIncoming.js";

/**
 * Every incoming-webhook integration this server serves, one import each, in name order. Adding
 * one: a module in services/ (see docs/integrations.md) and a line here.
 */
export const INTEGRATIONS: readonly IncomingWebhookIntegration[] = [gitea, gitlab, gogs, json, slackIncoming];

const byName = new Map(INTEGRATIONS.map((integration) => [integration.name, integration]));

export function integrationByName(name: string): IncomingWebhookIntegration | undefined {
  return byName.get(name);
}
