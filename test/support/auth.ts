/** The HTTP Basic Authorization header value of an API client: `email:apiKey`, base64-encoded (Zulip's API auth). */
export function basicAuth(email: string, apiKey: string): string {
  return "Basic " + Buffer.from(`${email}:${apiKey}`).toString("base64");
}
