import type { IncomingWebhookIntegration } from "./types.js";
import bitbucket3 from "./services/bitbucket3.js";
import alertmanager from "./services/alertmanager.js";
import appveyor from "./services/appveyor.js";
import azuredevops from "./services/azuredevops.js";
import bitbucket2 from "./services/bitbucket2.js";
import buildbot from "./services/buildbot.js";
import circleci from "./services/circleci.js";
import freshdesk from "./services/freshdesk.js";
import front from "./services/front.js";
import gitea from "./services/gitea.js";
import github from "./services/github.js";
import githubSponsors from "./services/githubSponsors.js";
import gitlab from "./services/gitlab.js";
import gocd from "./services/gocd.js";
import gogs from "./services/gogs.js";
import grafana from "./services/grafana.js";
import harbor from "./services/harbor.js";
import heroku from "./services/heroku.js";
import homeassistant from "./services/homeassistant.js";
import ifttt from "./services/ifttt.js";
import intercom from "./services/intercom.js";
import jira from "./services/jira.js";
import json from "./services/json.js";
import linear from "./services/linear.js";
import netlify from "./services/netlify.js";
import newrelic from "./services/newrelic.js";
import opsgenie from "./services/opsgenie.js";
import pagerduty from "./services/pagerduty.js";
import pingdom from "./services/pingdom.js";
import semaphore from "./services/semaphore.js";
import sentry from "./services/sentry.js";
import slackIncoming from "./services/slackIncoming.js";
import sonarqube from "./services/sonarqube.js";
import splunk from "./services/splunk.js";
import stripe from "./services/stripe.js";
import taiga from "./services/taiga.js";
import teamcity from "./services/teamcity.js";
import travis from "./services/travis.js";
import trello from "./services/trello.js";
import uptimerobot from "./services/uptimerobot.js";
import wekan from "./services/wekan.js";
import zabbix from "./services/zabbix.js";
import zapier from "./services/zapier.js";
import zendesk from "./services/zendesk.js";

/**
 * Every incoming-webhook integration this server serves, one import each, in name order. Adding
 * one: a module in services/ (see docs/integrations.md) and a line here.
 */
// prettier-ignore
export const INTEGRATIONS: readonly IncomingWebhookIntegration[] = [
  bitbucket3,
  alertmanager,
  appveyor,
  azuredevops,
  bitbucket2,
  buildbot,
  circleci,
  freshdesk,
  front,
  gitea,
  github,
  githubSponsors,
  gitlab,
  gocd,
  gogs,
  grafana,
  harbor,
  heroku,
  homeassistant,
  ifttt,
  intercom,
  jira,
  json,
  linear,
  netlify,
  newrelic,
  opsgenie,
  pagerduty,
  pingdom,
  semaphore,
  sentry,
  slackIncoming,
  sonarqube,
  splunk,
  stripe,
  taiga,
  teamcity,
  travis,
  trello,
  uptimerobot,
  wekan,
  zabbix,
  zapier,
  zendesk,
];

const byName = new Map(INTEGRATIONS.map((integration) => [integration.name, integration]));

export function integrationByName(name: string): IncomingWebhookIntegration | undefined {
  return byName.get(name);
}
