import type { AppContext } from "../appContext.js";
import type { User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { ApiError } from "../lib/errors.js";
import { sessionIdOf, sessionStore } from "../store/sessions.js";

/**
 * A user's web sessions (Parley's extension: GET /users/me/sessions, DELETE
 * /users/me/sessions[/{session_id}]; Zulip has no such API). A session is named by its public id
 * (store/sessions.ts sessionIdOf), never by its cookie. Ending one removes the row: its /json
 * requests are refused from the next one on, and the event queues it registered end at once in
 * every process (db/authCache.ts → events/queues.ts applyAuthChange).
 */

/** A use of a session: the browser's address and User-Agent. */
export interface SessionUse {
  ip: string;
  userAgent: string | undefined;
}

/** Long enough that an active session writes a few times an hour, not at each request. */
export const SESSION_ACTIVITY_STEP_SECONDS = 5 * 60;
/** A User-Agent is kept to show it; a longer one is cut. */
const MAX_USER_AGENT_LENGTH = 512;

export function sessionUseColumns(seen: SessionUse | undefined): { ip_address: string | null; user_agent: string | null } {
  return {
    ip_address: seen?.ip ?? null,
    user_agent: seen?.userAgent ? seen.userAgent.slice(0, MAX_USER_AGENT_LENGTH) : null,
  };
}

/**
 * Records that the session was used now, when the last recorded use is SESSION_ACTIVITY_STEP_SECONDS
 * old; returns whether it wrote. The caller keeps `lastActiveAt` (in the authentication cache).
 */
export async function noteSessionActivity(ctx: AppContext, key: string, lastActiveAt: number, now: number, seen: SessionUse): Promise<boolean> {
  if (now - lastActiveAt < SESSION_ACTIVITY_STEP_SECONDS) return false;
  const columns = sessionUseColumns(seen);
  await sessionStore.noteActivity(ctx.db.kysely, key, now, now - SESSION_ACTIVITY_STEP_SECONDS + 1, { ip: columns.ip_address, userAgent: columns.user_agent });
  return true;
}

/** As Zulip's ResourceNotFoundError for drafts and scheduled messages. */
const sessionNotFound = () => new ApiError("Session does not exist", { status: 404 });

/** DELETE /users/me/sessions/{session_id}: ends one of the user's sessions (another user's looks unknown). */
export async function doEndSession(tx: Tx, user: User, sessionId: string, now: number): Promise<void> {
  const session = (await sessionStore.listUnexpiredForUser(tx.q, user.id, now)).find((s) => sessionIdOf(s.session_key) === sessionId);
  if (!session) throw sessionNotFound();
  await sessionStore.delete(tx.q, session.session_key);
}

/** DELETE /users/me/sessions: ends every session of the user, or every other one (`keepId`: the caller's). */
export async function doEndSessions(tx: Tx, user: User, keepId: string | undefined): Promise<number> {
  return sessionStore.deleteForUser(tx.q, user.id, keepId);
}
