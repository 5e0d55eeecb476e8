import type { ApiError } from "../lib/errors.js";
import type { Payload } from "./payload.js";

/**
 * An incoming-webhook integration: what a service posts to /api/v1/external/<name>, turned into
 * messages the way Zulip's integration of the same name does. Each integration is one module
 * under src/integrations/services/ exporting one of these; the shared plumbing (authentication,
 * the channel and topic of the URL, event filters, errors) lives in src/integrations/ and
 * src/actions/incomingWebhooks.ts.
 */
export interface IncomingWebhookIntegration {
  /** The URL name: /api/v1/external/<name>, as in Zulip. */
  readonly name: string;
  /** As Zulip shows it ("GitHub"); also the name in Zulip's error texts and the client name Zulip<displayName>Webhook. */
  readonly displayName: string;
  /** Zulip's webhook_client_name when it differs from displayName ("UptimeRobot"): in error texts and the client name. */
  readonly webhookName?: string;
  readonly categories: readonly IntegrationCategory[];
  /** How the body is read: JSON (whatever the Content-Type says, as Zulip), urlencoded form fields, or text. Default JSON. */
  readonly body?: "json" | "form" | "text";
  /** The event types only_events/exclude_events match against (Zulip's all_event_types); absent: no filtering. */
  readonly allEventTypes?: readonly string[];
  /** Options a person adds to the URL besides stream/topic/only_events/exclude_events (branches, …). */
  readonly urlOptions?: readonly WebhookUrlOption[];
  /**
   * Zulip's return_success_on_head_request: the service checks the URL with a HEAD request before
   * it sends anything (Trello does when a webhook is created), answered 200 without credentials.
   */
  readonly answersHeadRequests?: boolean;
  /** Zulip's unquote_url_parameters: the service double-escapes the URL (Jira), so `stream` and `topic` are unquoted once more. */
  readonly unquoteUrlParameters?: boolean;
  /**
   * The body of an error answer raised while the request is read, handled or posted (not while
   * the bot is authenticated), when the service expects its own shape rather than Zulip's
   * envelope (Slack's {ok: false, error}). The status stays the error's.
   */
  readonly errorBody?: (error: ApiError) => Record<string, unknown>;
  /** Zulip's notify_bot_owner_on_invalid_json=False: a body that is not JSON is a 400 without telling the bot's owner (Zapier). */
  readonly notifyOwnerOnInvalidJson?: boolean;
  /** Markdown for the integrations page: what to do in the service to connect it. */
  readonly setup: string;
  handle(hook: WebhookInput): WebhookOutcome | Promise<WebhookOutcome>;
}

/** Zulip's integration categories (zerver/lib/integrations.py CATEGORIES). */
export type IntegrationCategory =
  | "bots"
  | "communication"
  | "continuous-integration"
  | "customer-support"
  | "deployment"
  | "entertainment"
  | "financial"
  | "hr"
  | "marketing"
  | "meta-integration"
  | "misc"
  | "monitoring"
  | "productivity"
  | "project-management"
  | "version-control";

export interface WebhookUrlOption {
  /** The query parameter. */
  readonly name: string;
  readonly label: string;
  readonly kind: "string" | "bool";
}

/** What a handler sees of the request. */
export interface WebhookInput {
  /** The body: parsed JSON, or the form's fields as an object (body "form"), or the text as a string (body "text"). */
  readonly payload: Payload;
  readonly rawBody: string;
  /** The user the request authenticated as (Zapier's authentication check answers with it). */
  readonly bot: { readonly id: number; readonly fullName: string; readonly email: string };
  /** A request header, by case-insensitive name. */
  header(name: string): string | undefined;
  /**
   * The header the service names its event in (Zulip's validate_extract_webhook_http_header):
   * missing, the request is a 400 and the bot's owner is told.
   */
  eventHeader(name: string): string;
  /** A query parameter of the webhook URL (an integration's own options, such as `branches`). */
  query(name: string): string | undefined;
  /** The event is one the service sends that this integration does not post: throw what this returns. */
  unsupported(eventType: string): Error;
  /** The payload cannot be from the service (Zulip's AnomalousWebhookPayloadError): throw what this returns. */
  anomalous(): Error;
  /** Where Zulip's texts say to write for help (its FromAddress.SUPPORT): the server administrator. */
  readonly supportEmail: string;
  /** Tells the bot's owner something, at most once a minute per bot (Zulip's send_rate_limited_pm_notification_to_bot_owner). */
  notifyBotOwner(content: string): Promise<void>;
  /**
   * An active user of the bot's organization whose full name is `name` (ignoring case) or whose
   * email starts with it (ignoring case), the oldest first; as TeamCity's guess_zulip_user_from_teamcity.
   */
  guessUser(name: string): Promise<number | undefined>;
}

/**
 * One message to post. `topic` is the integration's own; the URL's `topic` replaces it.
 * `eventType` is what only_events/exclude_events match (Zulip's complete_event_type); without
 * it the message is never filtered.
 */
export interface WebhookMessage {
  readonly topic: string;
  readonly content: string;
  readonly eventType?: string;
  /**
   * A direct message from the bot to this user instead (Zulip's check_send_private_message, as
   * TeamCity does for a personal build): the URL's channel, topic and event filters do not apply.
   */
  readonly directTo?: number;
}

/**
 * Messages to post, in order; none (null or []) answers success and posts nothing. A
 * WebhookAnswer adds fields to the success answer (Zapier's authentication check).
 */
export type WebhookOutcome = WebhookMessage | readonly WebhookMessage[] | WebhookAnswer | null;

export interface WebhookAnswer {
  readonly messages: readonly WebhookMessage[];
  readonly response: Readonly<Record<string, unknown>>;
}

/** Names an integration's type when it is declared, so each module reads as a table. */
export function defineIntegration(integration: IncomingWebhookIntegration): IncomingWebhookIntegration {
  return integration;
}
