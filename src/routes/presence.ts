import { transaction } from "../appContext.js";
import { doUpdateUserPresence } from "../actions/presence.js";
import { endpoint } from "../http/endpoint.js";
import { badRequest } from "../lib/errors.js";
import { p, pathParam } from "../http/params.js";
import { accessUserByIdOrEmail } from "../lib/access.js";
import { presenceStore } from "../store/presence.js";
import { nowSeconds } from "../util/time.js";
import { realmPresences, presenceVisible, legacyPresence } from "../lib/presence.js";

/** POST /users/me/presence (Zulip's update_active_status_backend). */
export const updatePresence = endpoint({
  auth: "user",
  params: {
    status: p.string(),
    ping_only: p.bool().default(false),
    new_user_input: p.bool().default(false),
    slim_presence: p.bool().default(false),
    last_update_id: p.int().optional(),
    history_limit_days: p.int({ min: 0 }).optional(),
  },
  handler: async ({ ctx, user, realm, params }) => {
    if (params.status !== "active" && params.status !== "idle") throw badRequest(`Invalid presence status: ${params.status}`);
    const status = params.status;
    const now = nowSeconds();
    await transaction(ctx, (tx) => doUpdateUserPresence(tx, realm, user, status, now));
    if (params.ping_only) return {};
    // Zulip: slim_presence or last_update_id asks for the modern format.
    const slim = params.slim_presence || params.last_update_id !== undefined;
    const { presences, lastUpdateId } = await realmPresences(ctx.db.kysely, realm, {
      slim,
      now,
      historyDays: params.history_limit_days,
      lastUpdateId: params.last_update_id,
    });
    return { presences, server_timestamp: now, zephyr_mirror_active: false, presence_last_update_id: lastUpdateId };
  },
});

/** GET /realm/presence */
export const getRealmPresence = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, realm }) => {
    const now = nowSeconds();
    return { presences: (await realmPresences(ctx.db.kysely, realm, { slim: false, now })).presences, server_timestamp: now };
  },
});

/** GET /users/{user_id_or_email}/presence */
export const getUserPresence = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, realm, path }) => {
    const q = ctx.db.kysely;
    const target = await accessUserByIdOrEmail(q, user, pathParam.userIdOrEmail(path.user_id_or_email), {
      allowDeactivated: false,
      allowBots: true,
      forAdministration: false,
    });
    const row = presenceVisible(realm, target) ? await presenceStore.get(q, target.id) : undefined;
    if (!row) throw badRequest(`No presence data for ${target.email}`);
    // This endpoint's entries carry only status and timestamp.
    const { website, aggregated } = legacyPresence(row, nowSeconds());
    return {
      presence: {
        website: { status: website.status, timestamp: website.timestamp },
        aggregated: { status: aggregated.status, timestamp: aggregated.timestamp },
      },
    };
  },
});
