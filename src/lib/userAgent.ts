import { lazy } from "../util/lazy.js";

/**
 * A User-Agent in the short form a sessions list shows: the browser with its major version
 * ("Firefox 128", "Zulip desktop 5") and the operating system ("Linux", "macOS", "Windows 10"),
 * each null when the header does not say. Parsed by bowser, which knows the browsers' tokens
 * (Edge and Opera announce themselves as Chrome too, Chrome as Safari). bowser is loaded at the
 * first sessions list, which no other request needs.
 */
export interface BrowserDescription {
  browser: string | null;
  os: string | null;
}

const loadBowser = lazy(async () => (await import("bowser")).default);

export async function describeUserAgent(userAgent: string | null): Promise<BrowserDescription> {
  if (!userAgent || userAgent.trim() === "") return { browser: null, os: null };
  const Bowser = await loadBowser();
  const parsed = Bowser.parse(userAgent);
  const zulipDesktop = /\bZulipElectron\/(\d+)/.exec(userAgent);
  const name = zulipDesktop ? "Zulip desktop" : parsed.browser.name;
  const major = zulipDesktop ? zulipDesktop[1] : parsed.browser.version?.split(".")[0];
  const osName = parsed.os.name;
  const osVersion = osName === "Windows" ? parsed.os.versionName : undefined;
  return {
    browser: name ? (major ? `${name} ${major}` : name) : null,
    os: osName ? (osVersion ? `${osName} ${osVersion}` : osName) : null,
  };
}
