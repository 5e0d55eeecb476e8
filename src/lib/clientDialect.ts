/**
 * Where our API spec (api-spec.md) and Zulip name the same thing differently, each client is
 * answered in the names it understands. Zulip's own clients decode strictly and throw on a value
 * they don't know (zulip-flutter fails a whole message list, event batch or /register on one
 * unknown reaction_type), so they get Zulip's names; every other client gets the spec's.
 *
 * The one difference today: the built-in extra emoji's reaction_type, stored and sent to other
 * clients as the spec's "service_extra_emoji", is Zulip's "zulip_extra_emoji". Inputs accept both
 * (normalizeReactionType); outputs are translated here, once per response or per event form.
 */
export type ClientDialect = "zulip" | "spec";

/**
 * zulip-js sends no User-Agent of its own: isomorphic-fetch's node-fetch 1.x sends this one.
 * (In a browser it is the browser's, and it uses the web session or API keys like any client.)
 */
const ZULIP_JS_USER_AGENT = "node-fetch/1.0 (+https://github.com/bitinn/node-fetch)";

/**
 * The dialect of a request. Zulip's clients name themselves with a product token starting with
 * "Zulip": ZulipFlutter/0.0.15+15 (Android 14), ZulipMobile/27.230 (iOS 17.4) and the Flutter
 * app's ZulipMobile/flutter, ZulipTerminal/0.7.0 <platform>, ZulipElectron/5.12.0 Mozilla/5.0 …,
 * ZulipDesktop/…, and python-zulip-api's default ZulipPython/0.9.0 (Linux; 6.1) (its bots say
 * Zulip<Name>Bot). Parley's own web app is recognised by its session-authenticated /json/ requests.
 */
export function clientDialectOf(userAgent: string | undefined, viaWebSession = false): ClientDialect {
  if (viaWebSession) return "zulip";
  if (!userAgent) return "spec";
  const ua = userAgent.trim();
  if (/^Zulip[A-Za-z]*(?:[/\s]|$)/.test(ua)) return "zulip";
  return ua === ZULIP_JS_USER_AGENT ? "zulip" : "spec";
}

const SPEC_EXTRA_EMOJI = '"reaction_type":"service_extra_emoji"';
const ZULIP_EXTRA_EMOJI = '"reaction_type":"zulip_extra_emoji"';

/**
 * JSON text (as JSON.stringify writes it: no spaces) in the client's dialect. The pattern can
 * only match structure: inside a JSON string every quote is escaped, so message content that
 * quotes it is left alone.
 */
export function jsonInDialect(json: string, dialect: ClientDialect): string {
  if (dialect !== "zulip" || !json.includes(SPEC_EXTRA_EMOJI)) return json;
  return json.replaceAll(SPEC_EXTRA_EMOJI, ZULIP_EXTRA_EMOJI);
}
