/**
 * The URL of Zulip's "Generate URL for an integration" dialog (components/IntegrationUrl.tsx):
 * `{realm_url}/api/v1/external/<name>?api_key=…&stream=<id>&topic=…&only_events=[…]`, then the
 * integration's own options, in the parameter order Zulip's dialog writes them.
 */

/** The "Direct message to me" choice: no `stream`, so the server sends to the bot's owner. */
export const DIRECT_MESSAGE = -1;

export interface UrlChoices {
  apiKey: string;
  integration: string;
  /** A channel id, or DIRECT_MESSAGE. */
  channel: number;
  topic: string | null;
  events: readonly string[] | null;
  options: Readonly<Record<string, string | boolean>>;
}

/** The URL as Zulip's modal writes it: api_key, stream, topic, only_events, then the integration's options. */
export function integrationUrl(realmUrl: string, c: UrlChoices): string {
  const params = new URLSearchParams({ api_key: c.apiKey });
  if (c.channel !== DIRECT_MESSAGE) {
    params.set("stream", String(c.channel));
    if (c.topic) params.set("topic", c.topic);
  }
  if (c.events && c.events.length > 0) params.set("only_events", JSON.stringify(c.events));
  for (const [key, value] of Object.entries(c.options)) {
    if (value === false || value === "") continue;
    params.set(key, value === true ? "true" : value);
  }
  return `${realmUrl.replace(/\/+$/, "")}/api/v1/external/${c.integration}?${params.toString()}`;
}
