import type { BotPayload } from "../contract/payloads.js";
import type { User } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { type BotService, botServiceStore } from "../store/botServices.js";
import { streamStore } from "../store/streams.js";
import { BotType } from "../models/roles.js";
import { buildUserPayload } from "./userPayload.js";

/** A bot as POST /register's realm_bots and realm_bot events show it: the API contract's BotPayload. */
export type BotDict = BotPayload;

export async function buildBotDicts(q: Executor, viewer: User, bots: readonly User[]): Promise<BotDict[]> {
  if (bots.length === 0) return [];
  const services = await botServiceStore.listByBotIds(
    q,
    bots.map((b) => b.id),
  );
  const streamIds = bots.flatMap((b) => [b.default_sending_stream_id, b.default_events_register_stream_id]).filter((id): id is number => id !== null);
  const names = new Map((await streamStore.listByIds(q, viewer.realm_id, [...new Set(streamIds)])).map((s) => [s.id, s.name]));
  return bots.map((bot) => ({
    user_id: bot.id,
    email: bot.email,
    full_name: bot.full_name,
    bot_type: bot.bot_type,
    is_active: bot.is_active === 1,
    api_key: bot.api_key,
    default_sending_stream: bot.default_sending_stream_id === null ? null : (names.get(bot.default_sending_stream_id) ?? null),
    default_events_register_stream: bot.default_events_register_stream_id === null ? null : (names.get(bot.default_events_register_stream_id) ?? null),
    default_all_public_streams: bot.default_all_public_streams === 1,
    avatar_url: buildUserPayload(viewer, bot, { clientGravatar: false }).avatar_url as string,
    owner_id: bot.bot_owner_id,
    services: services
      .filter((s) => s.bot_id === bot.id)
      .map((s) => (bot.bot_type === BotType.EMBEDDED ? { service_name: s.name, config_data: {} } : serviceDict(s))),
  }));
}

export function serviceDict(service: BotService): { base_url: string; token: string; interface: number } {
  return { base_url: service.base_url, token: service.token, interface: service.interface };
}
