import { CLIENT_CAPABILITY_NAMES, eventsForClient, type ClientCapabilities, type ClientDescriptor } from "../../src/events/clientEvents.js";
import type { ParleyEvent } from "../../src/events/dispatch.js";
import { validateEvent, type ValidationDialect } from "./openapi.js";

/**
 * Every event an action passes to tx.sendEventOnCommit, checked against the reference GET /events
 * schema in the forms clients receive it: as a client with every capability sees it and as one
 * with none sees it (the legacy forms), with the queue id GET /events adds.
 */
function client(capable: boolean, dialect: ValidationDialect = "spec"): ClientDescriptor {
  const capabilities = Object.fromEntries(CLIENT_CAPABILITY_NAMES.map((name) => [name, capable])) as unknown as ClientCapabilities;
  return {
    userId: 0,
    realmId: 0,
    eventTypes: null,
    narrow: [],
    allPublicStreams: false,
    applyMarkdown: true,
    clientGravatar: capable,
    slimPresence: capable,
    capabilities,
    emptyTopicDisplayName: "general chat",
    dialect,
  };
}

/** Modern and legacy clients in our spec's names, and a modern Zulip client (strict enums). */
const CLIENTS = [client(true), client(false), client(true, "zulip")];

/** The reasons `event`'s client forms do not match the reference (empty when they all do). */
export function committedEventViolations(event: ParleyEvent): string[] {
  const violations: string[] = [];
  for (const descriptor of CLIENTS) {
    // The sending queue's form carries local_message_id.
    const queueId = typeof event.sender_queue_id === "string" ? event.sender_queue_id : "";
    for (const form of eventsForClient(descriptor, queueId, event)) {
      try {
        validateEvent({ ...form.body, id: 0 }, descriptor.dialect);
      } catch (error) {
        violations.push((error as Error).message);
      }
    }
  }
  return violations;
}
