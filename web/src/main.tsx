import { effect } from "@preact/signals";
import { render } from "preact";
import { api } from "./api.js";
import { App } from "./components/App.js";
import { followRoute } from "./components/Compose.js";
import { register, runEventLoop } from "./events.js";
import { parseHash } from "./hash.js";
import { installKeyboard } from "./keyboard.js";
import { restoreOutbox } from "./outbox.js";
import { startPresence } from "./presence.js";
import { openNarrow, view } from "./messages.js";
import { channelTopics, lookup, route, settings } from "./state.js";
import { homeKind } from "./components/App.js";
import "./style.css";

/** Rewrites old spellings of a hash to the current ones, as Zulip does. */
const HASH_ALIASES: Record<string, string> = { "#recent_topics": "#recent", "#all_messages": "#feed" };

function applyHash(): void {
  const alias = HASH_ALIASES[location.hash];
  if (alias) history.replaceState(null, "", alias);
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

async function loadTopics(channelId: number): Promise<void> {
  try {
    const result = await api.get(`/users/me/${channelId}/topics`);
    const map = new Map(channelTopics.value);
    map.set(channelId, result.topics.map((t: { name: string; max_id: number }) => ({ name: t.name, max_id: t.max_id })));
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

async function start(): Promise<void> {
  const root = document.getElementById("app")!;
  await register();
  restoreOutbox();
  render(<App />, root);
  window.addEventListener("hashchange", applyHash);
  installKeyboard();
  // Coming back to the window: what is visible now becomes read.
  window.addEventListener("focus", () => (view.value = { ...view.value }));
  applyHash();
  void runEventLoop();
  startPresence();
}

start().catch((error) => {
  document.getElementById("app")!.textContent = `Could not load Parley: ${(error as Error).message}`;
});
