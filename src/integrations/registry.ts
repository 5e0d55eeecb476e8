import type { IncomingWebhookIntegration } from "./types.js";
import appveyor from "./services/appveyor.js";
import buildbot from "./services/buildbot.js";
import circleci from "./services/circleci.js";
import gocd from "./services/gocd.js";
import harbor from "./services/harbor.js";
import heroku from "./services/heroku.js";
import json from "./services/json.js";
import netlify from "./services/netlify.js";
import semaphore from "./services/semaphore.js";
import slackIncoming from "./services/slackIncoming.js";
import sonarqube from "./services/sonarqube.js";
import teamcity from "./services/teamcity.js";
import travis from "./services/travis.js";

/**
 * Every incoming-webhook integration this server serves, one import each, in name order. Adding
 * one: a module in services/ (see docs/integrations.md) and a line here.
 */
export const INTEGRATIONS: readonly IncomingWebhookIntegration[] = [
  appveyor,
  buildbot,
  circleci,
  gocd,
  harbor,
  heroku,
  json,
  netlify,
  semaphore,
  slackIncoming,
  sonarqube,
  teamcity,
  travis,
];

const byName = new Map(INTEGRATIONS.map((integration) => [integration.name, integration]));

export function integrationByName(name: string): IncomingWebhookIntegration | undefined {
  return byName.get(name);
}
