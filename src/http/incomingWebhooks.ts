import type { FastifyInstance, FastifyRequest } from "fastify";
import { guessRealmUser, notifyBotOwner, postWebhookMessages } from "../actions/incomingWebhooks.js";
import type { AppContext } from "../appContext.js";
import type { Realm, User } from "../db/schema.js";
import { isWellFormedApiKey } from "../lib/apiKeys.js";
import { ApiError, InvalidApiKeyError, MalformedJsonError, RealmDeactivatedError, UserDeactivatedError } from "../lib/errors.js";
import { realmStore } from "../store/realms.js";
import { userStore } from "../store/users.js";
import { authenticateAuthorizationHeader, checkHost } from "./auth.js";
import { applyRateLimit } from "./mount.js";
import { anomalousPayloadError, missingEventHeaderError, unsupportedEventError } from "../integrations/errors.js";
import { parseEventFilter } from "../integrations/eventFilter.js";
import { Payload } from "../integrations/payload.js";
import { loadIntegrations } from "../integrations/load.js";
import type { IncomingWebhookIntegration, WebhookInput, WebhookMessage, WebhookOutcome } from "../integrations/types.js";

/**
 * Incoming webhooks at Zulip's URLs, /api/v1/external/<integration>?api_key=…&stream=…&topic=…:
 * the bot is named by `api_key` in the query string or by HTTP Basic; the body is read as the
 * integration expects (JSON whatever the Content-Type says, as Zulip does), handed to the
 * integration (src/integrations/services/), and what it returns is posted
 * (actions/incomingWebhooks.ts). These routes sit outside the /api/v1 parameter machinery.
 */
type WebhookRequest = FastifyRequest<{ Params: { integration: string }; Querystring: Record<string, string | undefined>; Body: Buffer | undefined }>;

/** Larger than any service's documented maximum we post from; a body over it is a 413 with nothing posted. */
export const WEBHOOK_BODY_LIMIT = 5 * 1024 * 1024;

const MISSING_EVENT_HEADER_MESSAGE = (bot: User, path: string, header: string, integration: string, support: string) =>
  `Hi there!  Your bot ${bot.full_name} just sent an HTTP request to ${path} that
is missing the HTTP ${header} header.  Because this header is how
${integration} indicates the event type, this usually indicates a configuration
issue, where you either entered the URL for a different integration, or are running
an older version of the third-party service that doesn't provide that header.
Contact ${support} if you need help debugging!`;

const INVALID_JSON_MESSAGE = (integration: string) =>
  `Hi there! It looks like you tried to set up the Zulip ${integration} integration,
but didn't correctly configure the webhook to send data in the JSON format
that this integration expects!`;

async function webhookBot(ctx: AppContext, request: WebhookRequest): Promise<{ user: User; realm: Realm }> {
  const apiKey = request.query.api_key;
  if (apiKey === undefined) return authenticateAuthorizationHeader(ctx, request.headers.authorization, request.host);
  // Zulip's validate_api_key: its errors, in its order.
  if (!isWellFormedApiKey(apiKey)) {
    throw new ApiError("Malformed API key", { code: "INVALID_API_KEY", status: 401, headers: { "WWW-Authenticate": 'Basic realm="zulip"' } });
  }
  const user = await userStore.getByApiKey(ctx.db.kysely, apiKey);
  if (!user) throw new InvalidApiKeyError();
  const realm = await realmStore.getById(ctx.db.kysely, user.realm_id);
  if (!realm || realm.deactivated) throw new RealmDeactivatedError();
  if (!user.is_active) throw new UserDeactivatedError();
  return checkHost(ctx, { user, realm }, request.host);
}

function readPayload(integration: IncomingWebhookIntegration, raw: string): Payload {
  switch (integration.body ?? "json") {
    case "json":
      try {
        return new Payload(JSON.parse(raw));
      } catch {
        throw new MalformedJsonError();
      }
    case "form":
      return new Payload(Object.fromEntries(new URLSearchParams(raw)));
    case "text":
      return new Payload(raw);
  }
}

function header(request: WebhookRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** What a handler sees; every member may be destructured. */
function input(
  ctx: AppContext,
  bot: { user: User; realm: Realm },
  integration: IncomingWebhookIntegration,
  request: WebhookRequest,
  raw: string,
  payload: Payload,
): WebhookInput {
  return {
    payload,
    rawBody: raw,
    bot: { id: bot.user.id, fullName: bot.user.full_name, email: bot.user.email },
    header: (name) => header(request, name),
    eventHeader: (name) => {
      const value = header(request, name);
      if (value === undefined) throw missingEventHeaderError(name);
      return value;
    },
    query: (name) => request.query[name],
    unsupported: (eventType) => unsupportedEventError(integration.webhookName ?? integration.displayName, eventType),
    anomalous: () => anomalousPayloadError(integration.webhookName ?? integration.displayName),
    supportEmail: ctx.config.admin.email ?? "the server administrator",
    notifyBotOwner: (content) => notifyBotOwner(ctx, bot.user, bot.realm, content),
    guessUser: (name) => guessRealmUser(ctx, bot.realm, name),
  };
}

function outcomeParts(outcome: WebhookOutcome): { messages: readonly WebhookMessage[]; response: Readonly<Record<string, unknown>> } {
  if (outcome === null) return { messages: [], response: {} };
  if ("messages" in outcome) return outcome;
  if ("content" in outcome) return { messages: [outcome], response: {} };
  return { messages: outcome, response: {} };
}

function unquoted(value: string | undefined, unquote: boolean | undefined): string | undefined {
  if (value === undefined || !unquote) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export async function incomingWebhooks(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  // Services send JSON under any Content-Type (or none): each integration reads the bytes itself.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: WEBHOOK_BODY_LIMIT }, (_request, body, done) => done(null, body));

  // Zulip's return_success_on_head_request, for the services that check the URL first; other
  // integrations take POST only (Zulip's require_post).
  app.head("/api/v1/external/:integration", async (request: WebhookRequest, reply) => {
    const integration = (await loadIntegrations()).integrationByName(request.params.integration);
    if (!integration) return reply.callNotFound();
    if (!integration.answersHeadRequests) return reply.code(405).header("Allow", "POST").send();
    return reply.code(200).type("application/json").send();
  });

  app.post("/api/v1/external/:integration", { bodyLimit: WEBHOOK_BODY_LIMIT }, async (request: WebhookRequest, reply) => {
    const integration = (await loadIntegrations()).integrationByName(request.params.integration);
    if (!integration) return reply.callNotFound();
    let bot: { user: User; realm: Realm };
    try {
      bot = await webhookBot(ctx, request);
    } catch (error) {
      await applyRateLimit(ctx.rateLimiter, reply, `ip:${request.ip}`, ctx.config.rateLimits.ip);
      throw error;
    }
    const { user, realm } = bot;
    await applyRateLimit(ctx.rateLimiter, reply, `user:${user.id}`, ctx.config.rateLimits.user);
    const webhookName = integration.webhookName ?? integration.displayName;
    try {
      const response = await handleAndPost(ctx, integration, request, user, realm, webhookName);
      return reply.send({ result: "success", msg: "", ...response });
    } catch (error) {
      if (!integration.errorBody || !(error instanceof ApiError)) throw error;
      return reply.code(error.status).headers(error.headers).send(integration.errorBody(error));
    }
  });
}

async function handleAndPost(
  ctx: AppContext,
  integration: IncomingWebhookIntegration,
  request: WebhookRequest,
  user: User,
  realm: Realm,
  webhookName: string,
): Promise<Readonly<Record<string, unknown>>> {
  const target = {
    stream: unquoted(request.query.stream, integration.unquoteUrlParameters),
    topic: unquoted(request.query.topic, integration.unquoteUrlParameters),
    filter: parseEventFilter(request.query),
    clientName: `Zulip${webhookName}Webhook`,
  };
  const raw = request.body === undefined ? "" : request.body.toString("utf8");
  let outcome: WebhookOutcome;
  try {
    const payload = readPayload(integration, raw);
    outcome = await integration.handle(input(ctx, { user, realm }, integration, request, raw, payload));
  } catch (error) {
    // Zulip's webhook_view tells the owner; a view that answers errors its own way (Slack's) catches the JSON error first.
    if (error instanceof MalformedJsonError && !integration.errorBody && integration.notifyOwnerOnInvalidJson !== false) {
      await notifyBotOwner(ctx, user, realm, INVALID_JSON_MESSAGE(webhookName));
    } else if (error instanceof ApiError && error.code === "MISSING_HTTP_EVENT_HEADER") {
      const header = String(error.data.header);
      const support = ctx.config.admin.email ?? "the server administrator";
      await notifyBotOwner(ctx, user, realm, MISSING_EVENT_HEADER_MESSAGE(user, request.url.split("?")[0] ?? "", header, webhookName, support));
    } else if (error instanceof ApiError && (error.code === "UNSUPPORTED_WEBHOOK_EVENT_TYPE" || error.code === "ANOMALOUS_WEBHOOK_PAYLOAD")) {
      // Zulip's webhook loggers: what a service sent that no message came of, for the operator.
      request.log.warn({ integration: integration.name, bot: user.id, code: error.code, event_type: error.data.event_type }, error.message);
    }
    throw error;
  }
  const { messages, response } = outcomeParts(outcome);
  await postWebhookMessages(ctx, user, realm, target, messages);
  return response;
}
