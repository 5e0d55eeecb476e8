import * as z from "zod";
import { CLIENT_CAPABILITY_NAMES, type ClientCapabilities, type ClientDescriptor, QUEUE_NARROW_OPERATORS } from "../events/clientEvents.js";
import { fetchInitialState } from "../events/initialState/index.js";
import { openQueueWithState } from "../events/register.js";
import { badRequest } from "../lib/errors.js";
import { endpoint } from "../http/endpoint.js";
import { p } from "../http/params.js";
import { requestSessionId } from "../http/webSession.js";
import { EMPTY_TOPIC_DISPLAY_NAME } from "../contract/constants.js";
import { MAX_NARROW_TERMS } from "../lib/narrow/index.js";
import { isGuest } from "../models/roles.js";
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from "../models/version.js";
import type { FastifyRequest } from "fastify";
import type { ClientDialect } from "../lib/clientDialect.js";
import type { AppContext } from "../appContext.js";
import type { Realm } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { anonymousSettingsUser } from "../events/initialState/visitor.js";

const narrowElement = z.union([z.tuple([z.string(), z.string()]), z.object({ operator: z.string(), operand: z.string(), negated: z.boolean().optional() })]);

/** The longest a client may ask its queue to live unpolled (Zulip's MAX_QUEUE_TIMEOUT_SECS). */
const MAX_QUEUE_TIMEOUT_SECONDS = 7 * 24 * 3600;
/** idle_queue_timeout "mobile": Zulip's lifetime for the mobile apps' queues. */
const MOBILE_QUEUE_TIMEOUT_SECONDS = 12 * 3600;

/**
 * The queue's own idle timeout, when the client asks for one: idle_queue_timeout (seconds, or
 * "mobile"; newer Zulip servers) or Zulip 10.2's queue_lifespan_secs (0: the server's), at most a
 * week. A queue unpolled that long is dropped, and its user counts as off Zulip from then on.
 */
function queueIdleTimeoutMs(idleQueueTimeout: unknown, lifespanSeconds: number): number | undefined {
  let seconds = lifespanSeconds > 0 ? lifespanSeconds : undefined;
  if (idleQueueTimeout !== undefined) {
    if (idleQueueTimeout === "mobile") seconds = MOBILE_QUEUE_TIMEOUT_SECONDS;
    else if (typeof idleQueueTimeout === "number" && Number.isInteger(idleQueueTimeout) && idleQueueTimeout > 0) seconds = idleQueueTimeout;
    else throw badRequest("Invalid idle_queue_timeout");
  }
  return seconds === undefined ? undefined : Math.min(seconds, MAX_QUEUE_TIMEOUT_SECONDS) * 1000;
}

/**
 * POST /register: opens an event queue and returns the client's initial state. A visitor (no
 * credentials; Zulip's spectator) gets the state Zulip gives spectators and a visitor's queue
 * (events/visitorQueues.ts; Zulip 10.2 answers queue_id null, which event_types [] still gets).
 */
export const registerQueue = endpoint({
  auth: "visitor",
  params: {
    apply_markdown: p.bool().default(false),
    // Zulip's default: true for users, false for visitors (who may not ask for true).
    client_gravatar: p.bool().optional(),
    slim_presence: p.bool().default(false),
    presence_history_limit_days: p.int({ min: 0 }).optional(),
    all_public_streams: p.bool().default(false),
    include_subscribers: p.json(z.union([z.boolean(), z.literal("partial")])).default(false),
    client_capabilities: p.json(z.record(z.string(), z.unknown())).default({}),
    event_types: p.json(z.array(z.string()).nullable()).default(null),
    fetch_event_types: p.json(z.array(z.string()).nullable()).default(null),
    narrow: p.json(z.array(narrowElement).max(MAX_NARROW_TERMS)).default([]),
    queue_lifespan_secs: p.int({ min: 0 }).default(0),
    idle_queue_timeout: p.textOrJson().optional(),
  },
  handler: async ({ ctx, user, realm, params, request, raw }) => {
    if (user === null) return registerVisitor(ctx, realm, params, raw.request, request.dialect);
    // Zulip's can_access_public_streams: guests cannot read every public channel.
    if (params.all_public_streams && isGuest(user)) throw badRequest("User not authorized for this query");
    const narrow = params.narrow.map((element): [string, string] => (Array.isArray(element) ? element : [element.operator, element.operand]));
    for (const [operator, operand] of narrow) {
      if (!QUEUE_NARROW_OPERATORS.has(operator)) throw badRequest(`Invalid narrow operator: ${operator}`, {});
      if (operator === "is" && !["dm", "private", "starred", "unread", "mentioned", "alerted"].includes(operand))
        throw badRequest(`Invalid narrow operand: ${operand}`);
    }
    const idleTimeoutMs = queueIdleTimeoutMs(params.idle_queue_timeout, params.queue_lifespan_secs);
    const capabilities = Object.fromEntries(
      CLIENT_CAPABILITY_NAMES.map((name) => [name, params.client_capabilities[name] === true]),
    ) as unknown as ClientCapabilities;
    const client: ClientDescriptor = {
      userId: user.id,
      realmId: realm.id,
      eventTypes: params.event_types,
      narrow,
      allPublicStreams: params.all_public_streams,
      applyMarkdown: params.apply_markdown,
      clientGravatar: params.client_gravatar ?? true,
      slimPresence: params.slim_presence,
      capabilities,
      emptyTopicDisplayName: EMPTY_TOPIC_DISPLAY_NAME,
      dialect: request.dialect,
      ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
    };
    // A queue registered by a web session ends with it (events/queues.ts applyAuthChange).
    const sessionId = requestSessionId(raw.request);
    if (sessionId !== undefined) client.sessionId = sessionId;
    const fetchTypes = params.fetch_event_types ?? params.event_types;
    const { queue, state } = await openQueueWithState(ctx, client, (q) =>
      fetchInitialState(q, {
        user,
        realm,
        config: ctx.config,
        client,
        fetchEventTypes: fetchTypes === null ? null : new Set(fetchTypes),
        visitor: false,
        includeSubscribers: params.include_subscribers,
        presenceHistoryLimitDays: params.presence_history_limit_days ?? null,
      }),
    );
    return {
      queue_id: queue.id,
      last_event_id: queue.lastEventId,
      zulip_version: ZULIP_VERSION,
      zulip_feature_level: ZULIP_FEATURE_LEVEL,
      zulip_merge_base: ZULIP_MERGE_BASE,
      ...state,
    };
  },
});

/**
 * POST /register for a visitor (Zulip's events_register_backend and do_events_register without a
 * user): client_gravatar and include_subscribers may not be asked for; the state of
 * fetch_initial_state_data with user_profile None, in the visitor's language (Zulip's
 * django_language cookie, else the organization's); a visitor's event queue (events/visitorQueues.ts)
 * unless event_types is [] (then queue_id null and no last_event_id, as Zulip answers spectators).
 */
async function registerVisitor(
  ctx: AppContext,
  realm: Realm,
  params: {
    client_gravatar?: boolean;
    include_subscribers: boolean | "partial";
    client_capabilities: Record<string, unknown>;
    event_types: string[] | null;
    fetch_event_types: string[] | null;
    apply_markdown: boolean;
    slim_presence: boolean;
  },
  request: FastifyRequest,
  dialect: ClientDialect,
): Promise<Record<string, unknown>> {
  if (params.client_gravatar) throw badRequest("Invalid 'client_gravatar' parameter for anonymous request");
  if (params.include_subscribers) throw badRequest("Invalid 'include_subscribers' parameter for anonymous request");
  const capabilities = Object.fromEntries(
    CLIENT_CAPABILITY_NAMES.map((name) => [name, params.client_capabilities[name] === true]),
  ) as unknown as ClientCapabilities;
  const language = request.cookies[LANGUAGE_COOKIE];
  const user = anonymousSettingsUser(realm, language !== undefined && LANGUAGE_CODE.test(language) ? language : undefined);
  const client: ClientDescriptor = {
    userId: user.id,
    realmId: realm.id,
    eventTypes: params.event_types,
    narrow: [],
    allPublicStreams: false,
    applyMarkdown: params.apply_markdown,
    clientGravatar: false,
    slimPresence: params.slim_presence,
    capabilities,
    emptyTopicDisplayName: EMPTY_TOPIC_DISPLAY_NAME,
    dialect,
  };
  const fetchTypes = params.fetch_event_types ?? params.event_types;
  const fetch = (q: Executor) =>
    fetchInitialState(q, {
      user,
      realm,
      visitor: true,
      config: ctx.config,
      client,
      fetchEventTypes: fetchTypes === null ? null : new Set(fetchTypes),
      includeSubscribers: false,
      presenceHistoryLimitDays: null,
    });
  const versions = { zulip_version: ZULIP_VERSION, zulip_feature_level: ZULIP_FEATURE_LEVEL, zulip_merge_base: ZULIP_MERGE_BASE };
  // event_types [] asks for no events: Zulip's answer for spectators, no queue.
  if (params.event_types !== null && params.event_types.length === 0) return { queue_id: null, ...versions, ...(await fetch(ctx.db.kysely)) };
  const { queue, state } = await openQueueWithState(ctx, { ...client, visitor: true }, fetch, { address: request.ip });
  return { queue_id: queue.id, last_event_id: queue.lastEventId, ...versions, ...state };
}

/** Django's LANGUAGE_COOKIE_NAME, where Zulip keeps a visitor's chosen language. */
const LANGUAGE_COOKIE = "django_language";
/** What a language cookie may hold ("de", "pt-br", "zh-hans"); anything else is ignored. */
const LANGUAGE_CODE = /^[a-zA-Z]{2,3}([-_][a-zA-Z0-9]{1,8}){0,2}$/;
