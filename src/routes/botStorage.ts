import * as z from "zod";
import { getBotStorage, putBotStorage, removeBotStorage } from "../actions/botStorage.js";
import { transaction } from "../appContext.js";
import { endpoint } from "../http/endpoint.js";
import { p } from "../http/params.js";

const keys = p.json(z.array(z.string()).max(10_000)).optional();

/** GET /bot_storage: all of the caller's keys, or the ones asked for. */
export const getStorage = endpoint({
  auth: "user",
  params: { keys },
  handler: async ({ ctx, user, params }) => ({ storage: await transaction(ctx, (tx) => getBotStorage(tx, user, params.keys ?? null)) }),
});

/** PUT /bot_storage */
export const putStorage = endpoint({
  auth: "user",
  params: { storage: p.json(z.record(z.string(), z.string())) },
  handler: async ({ ctx, user, params }) => {
    await transaction(ctx, (tx) => putBotStorage(tx, user, params.storage));
  },
});

/** DELETE /bot_storage: the keys asked for, or everything. */
export const removeStorage = endpoint({
  auth: "user",
  params: { keys },
  handler: async ({ ctx, user, params }) => {
    await transaction(ctx, (tx) => removeBotStorage(tx, user, params.keys ?? null));
  },
});
