import { type ClientDialect, jsonInDialect } from "../lib/clientDialect.js";
import type { ParleyEvent } from "./dispatch.js";

/**
 * What a client declared at POST /register that changes the events it gets (Zulip's
 * client_capabilities and the register flags), and the per-client rewriting of one committed
 * event into what that client receives (Zulip's ClientDescriptor.accepts_event and the event
 * transforms of zerver/tornado/event_queue.py).
 */
export interface ClientCapabilities {
  notification_settings_null: boolean;
  bulk_message_deletion: boolean;
  user_avatar_url_field_optional: boolean;
  stream_typing_notifications: boolean;
  user_settings_object: boolean;
  linkifier_url_template: boolean;
  user_list_incomplete: boolean;
  include_deactivated_groups: boolean;
  archived_channels: boolean;
  empty_topic_name: boolean;
  simplified_presence_events: boolean;
}

export const CLIENT_CAPABILITY_NAMES: ReadonlyArray<keyof ClientCapabilities> = [
  "notification_settings_null",
  "bulk_message_deletion",
  "user_avatar_url_field_optional",
  "stream_typing_notifications",
  "user_settings_object",
  "linkifier_url_template",
  "user_list_incomplete",
  "include_deactivated_groups",
  "archived_channels",
  "empty_topic_name",
  "simplified_presence_events",
];

export interface ClientDescriptor {
  userId: number;
  realmId: number;
  /** null: every type. */
  eventTypes: string[] | null;
  /** Zulip's narrow for message events: [operator, operand] pairs, all of which must match. */
  narrow: Array<[string, string]>;
  allPublicStreams: boolean;
  applyMarkdown: boolean;
  clientGravatar: boolean;
  slimPresence: boolean;
  capabilities: ClientCapabilities;
  /** realm_empty_topic_display_name, for clients without the empty_topic_name capability. */
  emptyTopicDisplayName: string;
  /** The names the registering client understands (lib/clientDialect.ts); absent in queues saved before it existed: "spec". */
  dialect?: ClientDialect;
  /** How long the queue lives unpolled when its client asked (idle_queue_timeout, queue_lifespan_secs); else the server's timeout. */
  idleTimeoutMs?: number;
  /** The web session that registered it (its public id, store/sessions.ts): the queue ends with the session. */
  sessionId?: string;
  /** A visitor's queue (no user; events/visitorQueues.ts): `userId` is 0 and `realmId` the organization. */
  visitor?: true;
}

/** Whether the client takes message events (Zulip's accepts_messages): what makes its user "on Zulip" for notifications. */
export function acceptsMessages(client: Pick<ClientDescriptor, "eventTypes">): boolean {
  return client.eventTypes === null || client.eventTypes.includes("message");
}

/** Keys the server adds to an event for delivery decisions; never sent to clients. */
const INTERNAL_KEYS = [
  "raw_content",
  "sender_uses_gravatar",
  "sender_queue_id",
  "local_message_id",
  "all_public_streams",
  "unless_capability",
  "modern_presences",
  "spectators",
] as const;

/**
 * One event as a client receives it, shared by every queue whose client gets the same form (a
 * message to 1,000 users is rewritten and serialized once per form, not once per queue).
 */
export class ClientEvent {
  constructor(
    readonly body: ParleyEvent,
    private serialized?: string,
  ) {}

  private encodedHead?: Buffer;
  private jsonBytes?: number;

  /** The body as JSON, computed once. */
  get json(): string {
    return (this.serialized ??= JSON.stringify(this.body));
  }

  /**
   * The JSON's bytes without its closing brace, encoded once and shared by every queue that
   * gets this form (GET /events writes each queue's event id after them: queues.ts eventsChunks).
   */
  get head(): Buffer {
    return (this.encodedHead ??= Buffer.from(this.json.slice(0, -1)));
  }

  /**
   * The JSON's length in UTF-8 bytes, counted once for every queue that gets this form: GET
   * /events's Content-Length is summed from it (eventsFastPath.ts) instead of counting each answer.
   */
  get jsonByteLength(): number {
    return (this.jsonBytes ??= Buffer.byteLength(this.json));
  }
}

/**
 * The events `event` becomes for this client: none when the client should not get it, usually
 * one, several for a bulk deletion sent to a client that cannot take it. Clients that registered
 * alike (variantKey) share the result.
 */
export function eventsForClient(client: ClientDescriptor, queueId: string, event: ParleyEvent): readonly ClientEvent[] {
  // Only the queue a message was sent from gets its local_message_id (local echo).
  const key = event.sender_queue_id === queueId ? `${variantKey(client)}\u0000own` : variantKey(client);
  let forms = formsByEvent.get(event);
  if (!forms) formsByEvent.set(event, (forms = new Map()));
  let out = forms.get(key);
  if (!out) {
    const rewritten = acceptsEvent(client, event) ? rewriteForClient(client, queueId, event) : [];
    out = (Array.isArray(rewritten) ? rewritten : [rewritten]).map((body) => clientEventInDialect(body, client.dialect));
    forms.set(key, out);
  }
  return out;
}

/** The event in the client's dialect; its JSON, needed for the translation, is kept. */
function clientEventInDialect(body: ParleyEvent, dialect: ClientDialect | undefined): ClientEvent {
  if (dialect !== "zulip") return new ClientEvent(body);
  const json = JSON.stringify(body);
  const translated = jsonInDialect(json, dialect);
  return translated === json ? new ClientEvent(body, json) : new ClientEvent(JSON.parse(translated) as ParleyEvent, translated);
}

/** Each committed event's client forms, by variantKey; dropped with the event. */
const formsByEvent = new WeakMap<ParleyEvent, Map<string, readonly ClientEvent[]>>();
const variantKeys = new WeakMap<ClientDescriptor, string>();

/**
 * What decides how an event looks to this client (everything acceptsEvent and rewriteForClient
 * read), as a string: equal keys, equal events. The user matters only to a `dm` narrow.
 */
function variantKey(client: ClientDescriptor): string {
  let key = variantKeys.get(client);
  if (key === undefined) {
    const { userId, realmId: _realm, ...rest } = client;
    key = JSON.stringify([rest, client.narrow.length > 0 ? userId : null]);
    variantKeys.set(client, key);
  }
  return key;
}

function acceptsEvent(client: ClientDescriptor, event: ParleyEvent): boolean {
  if (client.eventTypes !== null && !client.eventTypes.includes(event.type)) return false;
  const caps = client.capabilities;
  // An event meant only for clients without a capability (an old form of another event).
  if (typeof event.unless_capability === "string" && caps[event.unless_capability as keyof ClientCapabilities]) return false;
  switch (event.type) {
    case "message":
      return client.narrow.length === 0 || matchesNarrow(client, event);
    case "typing":
      return event.message_type !== "stream" || caps.stream_typing_notifications;
    case "update_display_settings":
    case "update_global_notifications":
      return !caps.user_settings_object;
    case "realm_linkifiers":
      return caps.linkifier_url_template;
    default:
      return true;
  }
}

function rewriteForClient(client: ClientDescriptor, queueId: string, event: ParleyEvent): ParleyEvent | ParleyEvent[] {
  const caps = client.capabilities;
  const topicName = (topic: unknown) => (topic === "" && !caps.empty_topic_name ? client.emptyTopicDisplayName : topic);
  switch (event.type) {
    case "message": {
      // The message's flags travel beside it, not in it.
      const { flags: _flags, ...message } = event.message as Record<string, unknown>;
      if (!client.applyMarkdown) {
        message.content = event.raw_content;
        message.content_type = "text/x-markdown";
      }
      if (client.clientGravatar && event.sender_uses_gravatar === true) message.avatar_url = null;
      if (message.type === "stream") message.subject = topicName(message.subject);
      const out: ParleyEvent = { ...stripInternal(event), message };
      // Local echo: the queue the message was sent from learns which draft it confirms.
      if (event.sender_queue_id === queueId && event.local_message_id !== undefined) out.local_message_id = event.local_message_id;
      return out;
    }
    case "delete_message": {
      const base = stripInternal(event);
      if ("topic" in base) base.topic = topicName(base.topic);
      if (caps.bulk_message_deletion) return base;
      const { message_ids: ids, ...rest } = base as ParleyEvent & { message_ids: number[] };
      return ids.map((id) => ({ ...rest, message_id: id }));
    }
    case "update_message": {
      const base = stripInternal(event);
      for (const key of ["subject", "orig_subject", "topic"]) if (key in base) base[key] = topicName(base[key]);
      return base;
    }
    case "presence":
      // simplified_presence_events: the modern format, keyed by user id (Zulip 9.0, FL 263).
      if (caps.simplified_presence_events) return { type: "presence", presences: event.modern_presences };
      return stripInternal(event);
    case "typing": {
      const base = stripInternal(event);
      if ("topic" in base) base.topic = topicName(base.topic);
      return base;
    }
    case "stream":
      if (event.op === "update" && event.property === "is_archived" && !caps.archived_channels) {
        // Zulip's older clients learn of an archived channel as a deleted one.
        if (event.value !== true) return [];
        return { type: "stream", op: "delete", streams: [{ stream_id: event.stream_id }], stream_ids: [event.stream_id] };
      }
      return stripInternal(event);
    case "user_group": {
      const deactivated = (event.data as { deactivated?: boolean } | undefined)?.deactivated;
      if (event.op === "update" && deactivated !== undefined && !caps.include_deactivated_groups) {
        // Older clients see a deactivated group disappear (and reappear with "add" when reactivated upstream).
        return deactivated ? { type: "user_group", op: "remove", group_id: event.group_id } : [];
      }
      return stripInternal(event);
    }
    default:
      return stripInternal(event);
  }
}

function stripInternal(event: ParleyEvent): ParleyEvent {
  if (!INTERNAL_KEYS.some((key) => key in event)) return { ...event };
  const copy: ParleyEvent = { ...event };
  for (const key of INTERNAL_KEYS) delete copy[key];
  return copy;
}

/**
 * Zulip's build_narrow_filter for register's `narrow`: the operators a client can narrow its
 * event queue by. Unknown operators never match (register rejects them first).
 */
export const QUEUE_NARROW_OPERATORS = new Set(["channel", "stream", "topic", "sender", "is", "dm", "pm-with"]);

function matchesNarrow(client: ClientDescriptor, event: ParleyEvent): boolean {
  const message = event.message as Record<string, unknown>;
  const flags = (event.flags as string[] | undefined) ?? [];
  return client.narrow.every(([operator, operand]) => {
    const lower = String(operand).toLowerCase();
    switch (operator) {
      case "channel":
      case "stream":
        return message.type === "stream" && (String(message.display_recipient).toLowerCase() === lower || String(message.stream_id) === operand);
      case "topic":
        return message.type === "stream" && String(message.subject).toLowerCase() === lower;
      case "sender":
        return String(message.sender_email).toLowerCase() === lower || String(message.sender_id) === operand;
      case "is":
        switch (operand) {
          case "dm":
          case "private":
            return message.type === "private";
          case "starred":
            return flags.includes("starred");
          case "unread":
            return !flags.includes("read");
          case "mentioned":
            return flags.includes("mentioned") || flags.includes("stream_wildcard_mentioned") || flags.includes("topic_wildcard_mentioned");
          case "alerted":
            return flags.includes("has_alert_word");
          default:
            return false;
        }
      case "dm":
      case "pm-with": {
        if (message.type !== "private") return false;
        const wanted = new Set(lower.split(",").map((s) => s.trim()));
        const people = (message.display_recipient as Array<{ email: string; id: number }>).filter((p) => p.id !== client.userId);
        const others = people.length === 0 ? (message.display_recipient as Array<{ email: string }>) : people;
        return others.length === wanted.size && others.every((p) => wanted.has(p.email.toLowerCase()) || wanted.has(String((p as { id?: number }).id)));
      }
      default:
        return false;
    }
  });
}
