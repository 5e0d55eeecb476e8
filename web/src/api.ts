/**
 * The Zulip REST API as the web app calls it: /json/<path> with the session cookie, the page's
 * CSRF token on every request that may change state, parameters form-encoded (JSON values for
 * lists and objects), errors thrown as ApiError with Zulip's `code`.
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

export async function call<T = any>(method: string, path: string, params: Params = {}, signal?: AbortSignal): Promise<T> {
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
  const res = await fetch(url, init);
  let data: any = null;
  try {
    data = await res.json();
  } catch {
    // not JSON (a proxy's error page)
  }
  if (res.status === 401) {
    // The session ended (signed out elsewhere, expired): back to the login page.
    location.assign("/login/");
  }
  if (!res.ok || data?.result !== "success") {
    const retry = res.headers.get("Retry-After");
    throw new ApiError(data?.msg ?? `HTTP ${res.status}`, res.status, data?.code ?? "NETWORK", retry ? Number(retry) : null);
  }
  return data as T;
}

export const api = {
  get: <T = any>(path: string, params?: Params, signal?: AbortSignal) => call<T>("GET", path, params, signal),
  post: <T = any>(path: string, params?: Params) => call<T>("POST", path, params),
  patch: <T = any>(path: string, params?: Params) => call<T>("PATCH", path, params),
  del: <T = any>(path: string, params?: Params) => call<T>("DELETE", path, params),
};

export const myUserId = Number(meta("parley-user-id"));
