/**
 * Signing in with the /login/ form the way a browser does: GET the page (which sets the form's
 * CSRF cookie and writes the same token in a hidden field), then POST /accounts/login/ with both.
 */

import { at } from "./at.js";

/** The form's CSRF cookie (as a Cookie header value) and the token of its hidden field. */
export interface FormCsrf {
  cookie: string;
  token: string;
}

/** Loads a form page (`/login/` unless given) and reads its CSRF cookie and hidden token. */
export async function formCsrf(baseUrl: string, page = "/login/"): Promise<FormCsrf> {
  const res = await fetch(`${baseUrl}${page}`, { redirect: "manual" });
  const html = await res.text();
  const token = /<input type="hidden" name="csrfmiddlewaretoken" value="([^"]+)">/.exec(html)?.[1];
  const cookie = res.headers
    .getSetCookie()
    .map((line) => at(line.split(";"), 0))
    .find((pair) => pair.includes("_csrftoken="));
  if (!token || !cookie) throw new Error(`${page} gave no CSRF token (status ${res.status})`);
  return { cookie, token };
}

/**
 * Posts the sign-in form with the CSRF cookie and token of a /login/ page (loaded now unless
 * `csrf` is given); `headers` are added (a Cookie given there is sent beside the form's), and
 * `fields` are posted beside the form's (its hidden `next`).
 */
export async function postLoginForm(
  baseUrl: string,
  username: string,
  password: string,
  options: { headers?: Record<string, string>; csrf?: FormCsrf; fields?: Record<string, string> } = {},
): Promise<Response> {
  const csrf = options.csrf ?? (await formCsrf(baseUrl));
  const headers = { ...options.headers };
  headers.Cookie = headers.Cookie ? `${headers.Cookie}; ${csrf.cookie}` : csrf.cookie;
  return fetch(`${baseUrl}/accounts/login/`, {
    method: "POST",
    redirect: "manual",
    headers,
    body: new URLSearchParams({ username, password, csrfmiddlewaretoken: csrf.token, ...options.fields }),
  });
}
