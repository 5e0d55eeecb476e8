import type { FastifyInstance, FastifyRequest } from "fastify";
import { jsonIntegrationMessage, sendWebhookMessage, slackIncomingMessage } from "../actions/incomingWebhooks.js";
import { type AppContext, transaction } from "../appContext.js";
import type { Realm, User } from "../db/schema.js";
import { isWellFormedApiKey } from "../lib/apiKeys.js";
import { realmStore } from "../store/realms.js";
import { userStore } from "../store/users.js";
import { authenticateAuthorizationHeader } from "./auth.js";
import { ApiError, MalformedJsonError, UnauthorizedError } from "../lib/errors.js";

/**
 * Incoming webhooks at Zulip's URLs, /api/v1/external/{integration}?api_key=…&stream=…&topic=…:
 * `json` (any JSON, shown as a code block) and `slack_incoming` (Slack's incoming-webhook format).
 * The bot is named by `api_key` in the query string (or HTTP Basic). Bodies are read as the
 * integration sends them, so these routes sit outside the /api/v1 parameter machinery.
 */
type WebhookRequest = FastifyRequest<{ Querystring: Record<string, string | undefined> }>;

async function webhookBot(ctx: AppContext, request: WebhookRequest): Promise<{ user: User; realm: Realm }> {
  const apiKey = request.query.api_key;
  if (apiKey === undefined) return authenticateAuthorizationHeader(ctx, request.headers.authorization);
  if (!isWellFormedApiKey(apiKey)) throw new UnauthorizedError("Invalid API key");
  const user = await userStore.getByApiKey(ctx.db.kysely, apiKey);
  if (!user) throw new UnauthorizedError("Invalid API key");
  const realm = await realmStore.getById(ctx.db.kysely, user.realm_id);
  if (!realm || realm.deactivated) throw new UnauthorizedError("This organization has been deactivated");
  if (!user.is_active) throw new UnauthorizedError("Account is deactivated");
  return { user, realm };
}

function objectBody(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw new MalformedJsonError();
  return body as Record<string, unknown>;
}

export async function incomingWebhooks(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  const target = (request: WebhookRequest) => ({ stream: request.query.stream, topic: request.query.topic });

  app.post("/api/v1/external/json", async (request: WebhookRequest, reply) => {
    const { user, realm } = await webhookBot(ctx, request);
    if (request.body === undefined || request.body === null) throw new MalformedJsonError();
    const message = jsonIntegrationMessage(request.body);
    await transaction(ctx, (tx) => sendWebhookMessage(tx, user, realm, target(request), message.topic, message.content));
    return reply.send({ result: "success", msg: "" });
  });

  app.post("/api/v1/external/slack_incoming", async (request: WebhookRequest, reply) => {
    const { user, realm } = await webhookBot(ctx, request);
    let payload: Record<string, unknown>;
    const body = request.body as Record<string, unknown> | undefined;
    if (body && typeof body.payload === "string") {
      try {
        payload = objectBody(JSON.parse(body.payload));
      } catch (error) {
        if (error instanceof ApiError) throw error;
        throw new MalformedJsonError();
      }
    } else {
      payload = objectBody(body);
    }
    const message = slackIncomingMessage(payload);
    await transaction(ctx, (tx) => sendWebhookMessage(tx, user, realm, target(request), message.topic, message.content));
    return reply.send({ result: "success", msg: "" });
  });
}
