import * as z from "zod";
import { checkCreateBot, checkDeactivateBot, checkRegenerateBotApiKey, checkUpdateBot, listOwnBots, ServiceInterface } from "../actions/bots.js";
import { transaction } from "../appContext.js";
import { endpoint } from "../http/endpoint.js";
import { badRequest } from "../lib/errors.js";
import { realmUrl } from "../lib/realms.js";
import { p, pathParam } from "../http/params.js";
import { BotType } from "../models/roles.js";

/** Zulip's Json[url] parameters arrive as JSON strings; plain text is taken as well. */
const urlParam = () =>
  p.textOrJson().refine((value, name) => {
    if (typeof value !== "string") throw badRequest(`${name} is not a string`);
    return value;
  });

/** POST /bots: the bot's avatar may come as the one file of a multipart body. */
export const createBot = endpoint({
  auth: "user",
  params: {
    full_name: p.string({ trim: false }),
    short_name: p.string({ trim: false }),
    bot_type: p.int().default(BotType.GENERIC),
    payload_url: urlParam().default(""),
    service_name: p.string().optional(),
    config_data: p.json(z.record(z.string(), z.string())).default({}),
    interface_type: p.int().default(ServiceInterface.GENERIC),
    default_sending_stream: p.string().optional(),
    default_events_register_stream: p.string().optional(),
    default_all_public_streams: p.bool().optional(),
  },
  handler: async ({ ctx, user, realm, params, request }) => {
    const botDomain = new URL(realmUrl(ctx.config, realm)).hostname;
    return checkCreateBot(
      ctx,
      user,
      realm,
      botDomain,
      {
        fullName: params.full_name,
        shortName: params.short_name,
        botType: params.bot_type,
        payloadUrl: params.payload_url,
        interfaceType: params.interface_type,
        serviceName: params.service_name,
        defaultSendingStream: params.default_sending_stream,
        defaultEventsRegisterStream: params.default_events_register_stream,
        defaultAllPublicStreams: params.default_all_public_streams,
      },
      request.files,
    );
  },
});

/** GET /bots */
export const getBots = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user }) => ({ bots: await transaction(ctx, (tx) => listOwnBots(tx, user)) }),
});

const botIdOf = (path: Record<string, string>) => pathParam.int(path.bot_id, "bot_id");

/** PATCH /bots/{bot_id}: a new avatar may come as the one file of a multipart body. */
export const updateBot = endpoint({
  auth: "user",
  params: {
    full_name: p.string({ trim: false }).optional(),
    role: p.intEnum([100, 200, 300, 400, 600]).optional(),
    bot_owner_id: p.int().optional(),
    config_data: p.json(z.record(z.string(), z.string())).optional(),
    service_payload_url: urlParam().optional(),
    service_interface: p.int().default(ServiceInterface.GENERIC),
    default_sending_stream: p.string().optional(),
    default_events_register_stream: p.string().optional(),
    default_all_public_streams: p.bool().optional(),
  },
  handler: async ({ ctx, user, path, params, request }) =>
    checkUpdateBot(
      ctx,
      user,
      botIdOf(path),
      {
        fullName: params.full_name,
        role: params.role,
        botOwnerId: params.bot_owner_id,
        servicePayloadUrl: params.service_payload_url,
        serviceInterface: params.service_interface,
        defaultSendingStream: params.default_sending_stream,
        defaultEventsRegisterStream: params.default_events_register_stream,
        defaultAllPublicStreams: params.default_all_public_streams,
      },
      request.files,
    ),
});

/** DELETE /bots/{bot_id} */
export const deactivateBot = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, path }) => {
    await transaction(ctx, (tx) => checkDeactivateBot(tx, user, botIdOf(path)));
  },
});

/** POST /bots/{bot_id}/api_key/regenerate */
export const regenerateBotApiKey = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, path }) => ({ api_key: await transaction(ctx, (tx) => checkRegenerateBotApiKey(tx, user, botIdOf(path))) }),
});
