import { checkEditScheduledMessage, checkScheduleMessage, doDeleteScheduledMessage } from "../actions/scheduledMessages.js";
import { transaction } from "../appContext.js";
import { endpoint } from "../http/endpoint.js";
import { badRequest } from "../lib/errors.js";
import { p, Param, pathParam } from "../http/params.js";
import { listScheduledMessages, recipientTypeName } from "../lib/scheduledMessagePayload.js";

const RECIPIENT_TYPES = ["direct", "channel", "stream", "private"] as const;

/**
 * Zulip's `Json[int | list[int]]`: a channel id or a list of user ids. A value of neither type
 * fails on the union's first member, as pydantic reports it ('to["int"] is not an integer').
 */
const recipientParam = new Param<number | number[]>((raw, name) => {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw badRequest(`${name} is not valid JSON`);
  }
  if (Number.isSafeInteger(value)) return value as number;
  if (Array.isArray(value) && value.every((id) => Number.isSafeInteger(id))) return value as number[];
  throw badRequest(`${name}["int"] is not an integer`);
});

/** GET /scheduled_messages */
export const fetchScheduledMessages = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user }) => ({ scheduled_messages: await listScheduledMessages(ctx.db.kysely, user) }),
});

/** POST /scheduled_messages */
export const createScheduledMessage = endpoint({
  auth: "user",
  params: {
    type: p.enum(RECIPIENT_TYPES),
    to: recipientParam,
    topic: p.string({ trim: false }).optional().alias("subject"),
    content: p.string({ trim: false }),
    scheduled_delivery_timestamp: p.int(),
    read_by_sender: p.bool().optional(),
  },
  handler: async ({ ctx, user, realm, params, request }) => {
    const id = await transaction(ctx, (tx) =>
      checkScheduleMessage(tx, user, realm, {
        type: recipientTypeName(params.type),
        to: params.to,
        topic: params.topic,
        content: params.content,
        deliverAt: params.scheduled_delivery_timestamp,
        readBySender: params.read_by_sender,
        clientName: request.clientName,
      }),
    );
    return { scheduled_message_id: id };
  },
});

/** PATCH /scheduled_messages/{scheduled_message_id} */
export const updateScheduledMessage = endpoint({
  auth: "user",
  params: {
    type: p.enum(RECIPIENT_TYPES).optional(),
    to: recipientParam.optional(),
    topic: p.string({ trim: false }).optional().alias("subject"),
    content: p.string({ trim: false }).optional(),
    scheduled_delivery_timestamp: p.int().optional(),
  },
  handler: async ({ ctx, user, realm, params, path, request }) => {
    const id = pathParam.int(path.scheduled_message_id, "scheduled_message_id");
    await transaction(ctx, (tx) =>
      checkEditScheduledMessage(tx, user, realm, id, {
        type: params.type === undefined ? undefined : recipientTypeName(params.type),
        to: params.to,
        topic: params.topic,
        content: params.content,
        deliverAt: params.scheduled_delivery_timestamp,
        clientName: request.clientName,
      }),
    );
  },
});

/** DELETE /scheduled_messages/{scheduled_message_id} */
export const deleteScheduledMessages = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, path }) => {
    const id = pathParam.int(path.scheduled_message_id, "scheduled_message_id");
    await transaction(ctx, (tx) => doDeleteScheduledMessage(tx, user, id));
  },
});
