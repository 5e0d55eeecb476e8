import type { IncomingWebhookIntegration } from "./types.js";
import alertmanager from "./services/alertmanager.js";
import grafana from "./services/grafana.js";
import homeassistant from "./services/homeassistant.js";
import json from "./services/json.js";
import newrelic from "./services/newrelic.js";
import opsgenie from "./services/opsgenie.js";
import pagerduty from "./services/pagerduty.js";
import pingdom from "./services/pingdom.js";
import slackIncoming from "./services/slackIncoming.js";
import splunk from "./services/splunk.js";
import uptimerobot from "./services/uptimerobot.js";
import zabbix from "./services/zabbix.js";

/**
 * Every incoming-webhook integration this server serves, one import each, in name order. Adding
 * one: a module in services/ (see docs/integrations.md) and a line here.
 */
export const INTEGRATIONS: readonly IncomingWebhookIntegration[] = [
  alertmanager,
  grafana,
  homeassistant,
  json,
  newrelic,
  opsgenie,
  pagerduty,
  pingdom,
  slackIncoming,
  splunk,
  uptimerobot,
  zabbix,
];

const byName = new Map(INTEGRATIONS.map((integration) => [integration.name, integration]));

export function integrationByName(name: string): IncomingWebhookIntegration | undefined {
  return byName.get(name);
}
