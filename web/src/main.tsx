import type { TopicsResponse } from "../../src/contract/responses.js";
import { effect } from "@preact/signals";
import { render } from "preact";
import { api } from "./api.js";
import { App } from "./components/App.js";
import { followRoute } from "./components/Compose.js";
import { registerAtStart, runEventLoop } from "./events.js";
import { currentQueueId } from "./eventQueue.js";
import { type Lookup, parseHash } from "./hash.js";
import { installKeyboard } from "./keyboard.js";
import { installImagePreviews } from "./lightbox/images.js";
import { restoreOutbox } from "./outbox.js";
import { startPresence } from "./presence.js";
import { forgetPrefetch, openNarrow, prefetchNarrow, view } from "./messages.js";
import { channelTopics, lookup, route, settings } from "./state.js";
import { homeKind } from "./home.js";
import { startElectronBridge } from "./electronBridge.js";
import { startUnreadIndicators } from "./unreadIndicators.js";
import { isVisitor, needsAccount, visitorMayOpen } from "./visitor.js";
// After the components (whose stylesheets they import): the layout's rules for narrow and wide
// screens in style.css must come after the components' own rules.
import "./theme.css";
import "./style.css";

/** Rewrites old spellings of a hash to the current ones, as Zulip does. */
const HASH_ALIASES: Record<string, string> = { "#recent_topics": "#recent", "#all_messages": "#feed" };

/** The last hash a visitor could open: where a link that needs an account goes back to. */
let visitorHash = "";

function applyHash(): void {
  const alias = HASH_ALIASES[location.hash];
  if (alias) history.replaceState(null, "", alias);
  if (isVisitor) {
    if (!visitorMayOpen(location.hash)) {
      // Zulip's login_to_access: the view stays, and the prompt says why.
      history.replaceState(null, "", visitorHash || location.pathname);
      needsAccount();
    }
    visitorHash = location.hash;
  }
  const next = parseHash(location.hash, lookup);
  route.value = next;
  if (next.kind === "narrow") {
    void openNarrow(next.terms);
    followRoute();
  } else if (next.kind === "feed" || (next.kind === "home" && homeKind() === "feed")) {
    void openNarrow([]);
  }
}

/** The open channel's topics, fetched when the sidebar has none for it (first open, or after a move). */
const loadingTopics = new Set<number>();
effect(() => {
  const r = route.value;
  const topics = channelTopics.value;
  if (r.kind !== "narrow") return;
  const channel = r.terms.find((t) => t.operator === "channel" && !t.negated);
  if (!channel || !/^\d+$/.test(channel.operand)) return;
  const id = Number(channel.operand);
  if (topics.has(id) || loadingTopics.has(id)) return;
  loadingTopics.add(id);
  void loadTopics(id).finally(() => loadingTopics.delete(id));
});

/** A channel's topics for the sidebar (visitors too: the server answers them for web-public channels). */
async function loadTopics(channelId: number): Promise<void> {
  try {
    const result = await api.get<TopicsResponse>(`/users/me/${channelId}/topics`);
    const map = new Map(channelTopics.value);
    map.set(
      channelId,
      result.topics.map((t) => ({ name: t.name, max_id: t.max_id })),
    );
    channelTopics.value = map;
  } catch {
    // the sidebar simply shows no topics
  }
}

/** color_scheme: 1 = follow the system, 2 = dark, 3 = light. */
effect(() => {
  const scheme = settings.value.color_scheme;
  document.documentElement.dataset.theme = scheme === 2 ? "dark" : scheme === 3 ? "light" : "auto";
});

/**
 * A #narrow link (or the feed) names its messages before /register answers: they are asked for
 * at once, in parallel. Channels and people are taken by the ids of their slugs (no names known
 * yet); a link that needs names (a legacy channel name, an email) waits for the state.
 */
function prefetchFromHash(): void {
  const hash = HASH_ALIASES[location.hash] ?? location.hash;
  const ids: Lookup = {
    myId: lookup.myId,
    channelById: (id) => ({ name: String(id) }),
    channelIdByName: () => undefined,
    userById: () => undefined,
    userIdByEmail: () => undefined,
  };
  const early = parseHash(hash, ids);
  if (early.kind === "feed") return prefetchNarrow([]);
  if (early.kind !== "narrow") return;
  const byIds = early.terms.every((t) =>
    t.operator === "channel" ? /^\d+$/.test(t.operand) : ["dm", "dm-including", "sender"].includes(t.operator) ? /^\d+(,\d+)*$/.test(t.operand) : true,
  );
  if (byIds) prefetchNarrow(early.terms);
}

async function start(): Promise<void> {
  // Marks for scripts/bench-web.mjs (where the time to the first message list goes).
  performance.mark("parley:script");
  const root = document.getElementById("app")!;
  prefetchFromHash();
  // The page's state was registered before this script ran, so before the early fetch: a message
  // sent in between is in that fetch or comes as an event. Registered here instead, the queue may
  // be younger than the fetch, and a message sent between the two would be in neither.
  if (!(await registerAtStart())) forgetPrefetch();
  performance.mark("parley:state");
  if (!isVisitor) restoreOutbox();
  // The route first, so that the first render is already the view asked for.
  applyHash();
  render(<App />, root);
  performance.mark("parley:rendered");
  window.addEventListener("hashchange", applyHash);
  installKeyboard();
  installImagePreviews();
  // Coming back to the window: what is visible now becomes read.
  window.addEventListener("focus", () => (view.value = { ...view.value }));
  // The tab's title names the view (a visitor's unread count is always 0).
  startUnreadIndicators();
  // A visitor's queue (the server's visitor queues: web-public channels only) keeps the views
  // live; a visitor has no presence.
  if (isVisitor) {
    if (currentQueueId()) void runEventLoop();
    return;
  }
  void runEventLoop();
  startPresence();
  startElectronBridge();
}

start().catch((error) => {
  document.getElementById("app")!.textContent = `Could not load Parley: ${(error as Error).message}`;
});
