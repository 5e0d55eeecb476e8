import * as z from "zod";
import { doAddAlertWords, doRemoveAlertWords } from "../actions/alertWords.js";
import { transaction } from "../appContext.js";
import { endpoint } from "../http/endpoint.js";
import { p } from "../http/params.js";
import { MAX_ALERT_WORD_LENGTH } from "../lib/alertWords.js";
import { alertWordStore } from "../store/alertWords.js";

const words = p.json(z.array(z.string().max(MAX_ALERT_WORD_LENGTH)).max(1000));

/** GET /users/me/alert_words */
export const listAlertWords = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user }) => ({ alert_words: await alertWordStore.list(ctx.db.kysely, user.id) }),
});

/** POST /users/me/alert_words */
export const addAlertWords = endpoint({
  auth: "user",
  params: { alert_words: words },
  handler: async ({ ctx, user, params }) => ({ alert_words: await transaction(ctx, (tx) => doAddAlertWords(tx, user, params.alert_words)) }),
});

/** DELETE /users/me/alert_words */
export const removeAlertWords = endpoint({
  auth: "user",
  params: { alert_words: words },
  handler: async ({ ctx, user, params }) => ({ alert_words: await transaction(ctx, (tx) => doRemoveAlertWords(tx, user, params.alert_words)) }),
});
