import { doEndSession, doEndSessions } from "../actions/sessions.js";
import { transaction } from "../appContext.js";
import { endpoint } from "../http/endpoint.js";
import { p, pathParam } from "../http/params.js";
import { requestSessionId } from "../http/webSession.js";
import { describeUserAgent } from "../lib/userAgent.js";
import { sessionIdOf, sessionStore } from "../store/sessions.js";
import { nowSeconds } from "../util/time.js";

/**
 * The user's web sessions: Parley's extension, not in Zulip's API (actions/sessions.ts). Served
 * under /api/v1 too: an API key already reaches the whole account, and a phone can then sign out
 * a lost laptop. A session is named by its public id, never by its cookie.
 */

/** GET /users/me/sessions: the unexpired sessions, the most recently used first. */
export const listSessions = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, raw }) => {
    const current = requestSessionId(raw.request);
    const rows = await sessionStore.listUnexpiredForUser(ctx.db.kysely, user.id, nowSeconds());
    const sessions = await Promise.all(
      rows.map(async (row) => {
        const id = sessionIdOf(row.session_key);
        return {
          id,
          created_at: row.created_at,
          last_active_at: row.last_active_at,
          expires_at: row.expires_at,
          ip_address: row.ip_address,
          ...(await describeUserAgent(row.user_agent)),
          is_current: id === current,
        };
      }),
    );
    return { sessions };
  },
});

/** DELETE /users/me/sessions/{session_id}: signs one session out (this one too, if named). */
export const endSession = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, path }) => {
    const id = pathParam.text(path.session_id, "session_id");
    await transaction(ctx, (tx) => doEndSession(tx, user, id, nowSeconds()));
  },
});

/**
 * DELETE /users/me/sessions: "log out everywhere", every session; with keep_current=true every
 * other one. Answers how many ended.
 */
export const endSessions = endpoint({
  auth: "user",
  params: { keep_current: p.bool().default(false) },
  handler: async ({ ctx, user, params, raw }) => {
    const keep = params.keep_current ? requestSessionId(raw.request) : undefined;
    const ended = await transaction(ctx, (tx) => doEndSessions(tx, user, keep));
    return { ended };
  },
});
