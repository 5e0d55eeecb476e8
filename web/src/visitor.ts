import { signal } from "@preact/signals";

/**
 * Visitor mode (Zulip's spectators): `/` without a session, in an organization that lets
 * visitors read its web-public channels, serves the app with `<meta name="parley-visitor">`
 * (src/http/webApp.ts). The app then reads only: the web-public channels (every message list
 * asks for `channels:web-public`, as Zulip's web app does for spectators), no direct messages,
 * a visitor's event queue (POST /register gives one; src/events/visitorQueues.ts) that brings the
 * web-public channels' new, edited and deleted messages and reactions live, and what needs an
 * account shows the sign-in prompt instead.
 */
export const isVisitor = document.querySelector<HTMLMetaElement>('meta[name="parley-visitor"]')?.content === "1";

/** Zulip's spectator narrow term, added to every message fetch of a visitor. */
export const WEB_PUBLIC_TERM = { operator: "channels", operand: "web-public" } as const;

/** A narrow as a visitor's GET /messages sends it: with `channels:web-public` appended (Zulip's message_fetch). */
export function visitorNarrow<T extends object>(narrow: T[]): Array<T | typeof WEB_PUBLIC_TERM> {
  return isVisitor ? [...narrow, WEB_PUBLIC_TERM] : narrow;
}

/** The sign-in prompt (Zulip's login_to_access dialog): open when set, with what was asked for. */
export const signInPrompt = signal<{ reason: "action" | "signup" } | null>(null);

/** For a visitor, opens the sign-in prompt and answers true (the caller then does nothing). */
export function needsAccount(reason: "action" | "signup" = "action"): boolean {
  if (!isVisitor) return false;
  signInPrompt.value = { reason };
  return true;
}

/** The sign-in page, coming back to what the visitor was looking at (/login/'s `next`). */
export function loginHref(): string {
  return `/login/?${new URLSearchParams({ next: `/${location.hash}` }).toString()}`;
}

/** The hashes a visitor may open (Zulip's hash_parser.is_spectator_compatible); others need an account. */
export function visitorMayOpen(hash: string): boolean {
  const main = hash.replace(/^#/, "").split("/")[0] ?? "";
  return ["", "narrow", "recent", "recent_topics", "feed", "all_messages", "keyboard-shortcuts", "message-formatting", "search-operators"].includes(main);
}
