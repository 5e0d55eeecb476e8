import type { SessionsResponse, WebSession } from "../../../src/contract/responses.js";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.js";
import { attempt, Group } from "./forms.js";

/**
 * The "Sessions" part of Account & privacy: the browsers signed in to the account (Parley's
 * GET /users/me/sessions), each with a button that signs it out, and "log out" for all the others
 * or everywhere. A session signed out here loses its event queue at once; when it is this one, the
 * app's next request is refused and it goes to the login page (api.ts).
 */
export function Sessions() {
  const [sessions, setSessions] = useState<WebSession[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api
      .get<SessionsResponse>("/users/me/sessions")
      .then((answer) => setSessions(answer.sessions))
      .catch((e: unknown) => setError((e as Error).message));
  useEffect(() => void load(), []);

  const end = async (request: () => Promise<unknown>, done: string) => {
    if (await attempt(request, done)) await load();
  };
  const others = sessions?.filter((s) => !s.is_current).length ?? 0;
  return (
    <Group title="Sessions">
      <p class="hint">The browsers signed in to your account. Signing one out takes effect at once.</p>
      {error !== null && <p class="status error">{error}</p>}
      {sessions === null && error === null && <p class="status">Loading…</p>}
      {sessions !== null && (
        <ul class="sessions">
          {sessions.map((s) => (
            <li key={s.id} data-session-id={s.id} class={s.is_current ? "current" : undefined}>
              <span class="session-device">{device(s)}</span>
              <span class="session-details">
                {s.ip_address ?? "unknown address"} · signed in {when(s.created_at)} · last active {when(s.last_active_at)}
              </span>
              {s.is_current ? (
                <span class="session-current">This session</span>
              ) : (
                <button type="button" onClick={() => void end(() => api.del(`/users/me/sessions/${s.id}`), "Signed out")}>
                  Log out
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <div class="row">
        <button type="button" disabled={others === 0} onClick={() => void end(() => api.del("/users/me/sessions", { keep_current: true }), "Signed out")}>
          Log out all other sessions
        </button>
        <button type="button" class="danger" onClick={() => void end(() => api.del("/users/me/sessions"), "Signed out everywhere")}>
          Log out everywhere
        </button>
      </div>
    </Group>
  );
}

function device(session: WebSession): string {
  if (session.browser && session.os) return `${session.browser} on ${session.os}`;
  return session.browser ?? session.os ?? "Unknown browser";
}

function when(seconds: number): string {
  return new Date(seconds * 1000).toLocaleString(undefined, { month: "short", day: "numeric", hour: "numeric", minute: "2-digit" });
}
