import { signal } from "@preact/signals";
import { useRef, useState } from "preact/hooks";
import { narrowHash } from "../hash.js";
import { channelTopics, lookup, subscriptions, users } from "../state.js";
import type { SearchContext, Suggestion } from "../search.js";
import { myUserId } from "../api.js";

/** search.ts, loaded with the box's first use (a chunk of its own). */
const searchModule = signal<typeof import("../search.js") | null>(null);
let loading: Promise<typeof import("../search.js")> | null = null;
function loadSearch() {
  loading ??= import("../search.js").then((m) => (searchModule.value = m));
  return loading;
}

function context(): SearchContext {
  return {
    myId: myUserId,
    channels: [...subscriptions.value.values()].map((s) => ({ id: s.stream_id, name: s.name })).sort((a, b) => a.name.localeCompare(b.name)),
    users: [...users.value.values()]
      .filter((u) => u.is_active !== false)
      .map((u) => ({ id: u.user_id, name: u.full_name, email: u.email }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    topicsOf: (id) => (channelTopics.value.get(id) ?? []).map((t) => t.name),
  };
}

/** The search box with Zulip's operators and suggestions as you type. */
export function SearchBox() {
  const [text, setText] = useState("");
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const module = searchModule.value;
  const suggestions: Suggestion[] = open && module ? module.suggest(text, context()) : [];

  const search = async (query: string) => {
    const m = await loadSearch();
    const terms = m.parseSearch(query, context());
    if (terms.length === 0) return;
    setOpen(false);
    input.current?.blur();
    location.hash = narrowHash(terms, lookup);
  };
  const pick = (s: Suggestion) => {
    setText(s.text);
    setActive(0);
    if (s.partial || s.text.endsWith(":")) return input.current?.focus();
    void search(s.text);
  };
  return (
    <form
      class="search"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        // Enter takes the highlighted suggestion: one chosen with the arrows, or the first when it
        // completes what is typed (rather than repeating it).
        const chosen = suggestions[active];
        if (chosen && (active > 0 || (text.trim() !== "" && chosen.text.trim() !== text.trim()))) return pick(chosen);
        if (text.trim()) void search(text.trim());
      }}
    >
      <input
        class="text-field"
        ref={input}
        name="q"
        type="search"
        placeholder="Search"
        aria-label="Search"
        autocomplete="off"
        role="combobox"
        list={undefined} // (Preact's types ask a combobox input for one; the suggestions are a listbox)
        aria-autocomplete="list"
        aria-expanded={suggestions.length > 0}
        aria-controls="search-suggestions"
        aria-activedescendant={suggestions.length > 0 ? `search-suggestion-${active}` : undefined}
        value={text}
        onFocus={() => (void loadSearch(), setOpen(true))}
        // Closed a moment after the box loses focus (a click on a suggestion lands first), unless
        // it has the focus again by then: a stale close would hide what is typed next.
        onBlur={() => setTimeout(() => document.activeElement !== input.current && setOpen(false), 150)}
        onInput={(e) => (setText(e.currentTarget.value), setActive(0), setOpen(true))}
        // Arrows choose a suggestion and Enter takes it; Tab moves the focus on, as everywhere
        // (Zulip's search box does not complete on Tab either); Esc closes the list and leaves.
        onKeyDown={(e) => {
          if (e.key === "ArrowDown" && suggestions.length > 0) {
            e.preventDefault();
            setActive(Math.min(active + 1, suggestions.length - 1));
          } else if (e.key === "ArrowUp" && suggestions.length > 0) {
            e.preventDefault();
            setActive(Math.max(active - 1, 0));
          } else if (e.key === "Escape") setOpen(false);
        }}
      />
      {suggestions.length > 0 && (
        <ul class="suggestions" id="search-suggestions" role="listbox">
          {suggestions.map((s, i) => (
            <li
              key={s.text}
              id={`search-suggestion-${i}`}
              role="option"
              aria-selected={i === active}
              class={i === active ? "active" : ""}
              onMouseDown={(e) => (e.preventDefault(), pick(s))}
            >
              <span class="query">{s.text.trim()}</span> <span class="what">{s.description}</span>
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}
