import { inOrder } from "./changeQueue.js";
import { isVisitor, needsAccount } from "./visitor.js";

/**
 * The Zulip REST API as the web app calls it: /json/<path> with the session cookie, the page's
 * CSRF token on every request that may change state, parameters form-encoded (JSON values for
 * lists and objects), errors thrown as ApiError with Zulip's `code` (status 0, code NETWORK: no
 * answer). Changes (POST, PATCH, DELETE) go in order and are sent again until the server answers
 * (changeQueue.ts), except those made with `api.once`.
 */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

export type Params = Record<string, string | number | boolean | object | undefined>;

/** Zulip's envelope: result, msg and code beside the endpoint's own fields. */
export interface Envelope {
  result?: unknown;
  msg?: unknown;
  code?: unknown;
}

/** The ApiError of a failed answer (its envelope, when it has one). */
export function answerError(data: Envelope | null, status: number, retryAfter: number | null = null): ApiError {
  const msg = typeof data?.msg === "string" ? data.msg : `HTTP ${status}`;
  return new ApiError(msg, status, typeof data?.code === "string" ? data.code : "NETWORK", retryAfter);
}

function meta(name: string): string {
  return document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? "";
}

/** The session's CSRF token, sent with every request that may change state (/json, and tus uploads). */
export const csrfToken = meta("parley-csrf-token");

function encode(params: Params): URLSearchParams {
  const out = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    out.set(key, typeof value === "string" ? value : JSON.stringify(value));
  }
  return out;
}

export async function call<T = unknown>(method: string, path: string, params: Params = {}, signal?: AbortSignal): Promise<T> {
  // A visitor changes nothing (the server would refuse it): what needs an account asks to sign in.
  if (isVisitor && method !== "GET" && path !== "/register") {
    needsAccount();
    throw new ApiError("Log in or sign up to do this.", 401, "UNAUTHORIZED");
  }
  const body = encode(params);
  let url = `/json${path}`;
  const init: RequestInit = { method, credentials: "same-origin", signal, headers: {} };
  if (method === "GET") {
    const query = body.toString();
    if (query) url += `?${query}`;
  } else {
    init.body = body;
    (init.headers as Record<string, string>)["X-CSRFToken"] = csrfToken;
  }
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (error) {
    // No answer: the server is down or restarting, or the network is (an abort stays an abort).
    if (error instanceof TypeError) throw new ApiError("The connection to the server failed.", 0, "NETWORK");
    throw error;
  }
  let data: Envelope | null = null;
  try {
    data = (await res.json()) as Envelope;
  } catch {
    // not JSON (a proxy's error page)
  }
  // The session ended (signed out elsewhere, expired): back to the login page. A visitor has none:
  // a request the server keeps for users is simply refused.
  if (res.status === 401 && !isVisitor) location.assign("/login/");
  if (!res.ok || data?.result !== "success") {
    const retry = res.headers.get("Retry-After");
    throw answerError(data, res.status, retry ? Number(retry) : null);
  }
  return data as T;
}

/** Statuses that mean the server did not answer the request: no connection (0), 429, 502, 503, 504. */
const NOT_ANSWERED = new Set([0, 429, 502, 503, 504]);

/** How long to wait before sending a change again, or null when its failure is final (a refusal). */
export function retryDelay(error: unknown, failures: number): number | null {
  if (!(error instanceof ApiError) || !NOT_ANSWERED.has(error.status)) return null;
  // Jittered backoff: 0.5 s, 1 s, 2 s … up to 30 s, or the server's Retry-After.
  const backoff = Math.min(30_000, 500 * 2 ** Math.min(failures - 1, 6)) * (0.5 + Math.random() / 2);
  return Math.max(backoff, (error.retryAfter ?? 0) * 1000);
}

/**
 * Refusals that, for a change sent again, say its earlier attempt did reach the server (its answer
 * was lost): the change is done. (Flags, subscriptions and settings are idempotent already.)
 */
const ALREADY_DONE = new Set(["REACTION_ALREADY_EXISTS", "REACTION_DOES_NOT_EXIST"]);

function change<T>(method: string, path: string, params?: Params): Promise<T> {
  return inOrder(async (failures) => {
    try {
      return await call<T>(method, path, params);
    } catch (error) {
      if (failures > 0 && error instanceof ApiError && ALREADY_DONE.has(error.code)) return { result: "success", msg: "" } as T;
      throw error;
    }
  }, retryDelay);
}

export const api = {
  get: <T = unknown>(path: string, params?: Params, signal?: AbortSignal) => call<T>("GET", path, params, signal),
  post: <T = unknown>(path: string, params?: Params) => change<T>("POST", path, params),
  patch: <T = unknown>(path: string, params?: Params) => change<T>("PATCH", path, params),
  del: <T = unknown>(path: string, params?: Params) => change<T>("DELETE", path, params),
  /**
   * One attempt, at once, its failure final: for what must not be sent again later (message sends,
   * which the outbox retries; registration; typing and presence notices; previews; passwords and
   * API keys; creations, where a retry after a lost answer would create a second one).
   */
  once: {
    post: <T = unknown>(path: string, params?: Params) => call<T>("POST", path, params),
    patch: <T = unknown>(path: string, params?: Params) => call<T>("PATCH", path, params),
  },
};

export const myUserId = Number(meta("parley-user-id"));
