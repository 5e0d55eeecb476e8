import "./EmojiPicker.css";
import { useEffect, useRef, useState } from "preact/hooks";
import { catalogue, closeEmojiPicker, picker } from "../emojiPicker.js";
import { searchEmoji } from "../emojiSearch.js";
import { EmojiGlyph } from "./EmojiGlyph.js";

/** The emoji picker: a search box and the matching emoji; a click picks one (reaction or insertion). */
export function EmojiPicker() {
  const p = picker.value;
  const [query, setQuery] = useState("");
  // Enter pressed while the emoji data is still loading picks the first match once it is here.
  const [enterPending, setEnterPending] = useState(false);
  const data = catalogue.value;
  const results = p && data ? searchEmoji(data, query, 240) : [];
  const pick = (index: number) => {
    const emoji = results[index];
    setEnterPending(false);
    if (!p || !emoji) return;
    closeEmojiPicker();
    setQuery("");
    p.onPick(emoji);
  };
  // The effect runs when the data arrives, with the pick of that render (through a ref).
  const pickLatest = useRef(pick);
  pickLatest.current = pick;
  useEffect(() => {
    if (enterPending && data) pickLatest.current(0);
  }, [enterPending, data]);
  const grid = useRef<HTMLDivElement>(null);
  const inView = useEmojiInView(grid, `${query} ${data ? results.length : -1}`);
  const close = () => (closeEmojiPicker(), setQuery(""), setEnterPending(false));
  if (!p) return null;
  return (
    // A click on the backdrop closes; from the keyboard, Esc in the search field does.
    <div class="emoji-backdrop" role="presentation" onClick={(e) => e.target === e.currentTarget && close()}>
      <div class="emoji-picker" role="dialog" aria-label="Emoji picker" style={{ top: `${p.top}px`, left: `${p.left}px` }}>
        <input
          class="text-field"
          type="search"
          aria-label="Search emoji"
          placeholder="Search emoji"
          value={query}
          ref={(el) => el?.focus()}
          onInput={(e) => setQuery(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === "Escape") close();
            if (e.key === "Enter") {
              e.preventDefault();
              if (data) pick(0);
              else setEnterPending(true);
            }
          }}
        />
        {!data && <p class="status">Loading…</p>}
        {data && results.length === 0 && <p class="status">No matching emoji</p>}
        <div class="emoji-grid" ref={grid}>
          {results.map((emoji, i) => {
            const key = `${emoji.type}:${emoji.code}`;
            return (
              <button type="button" key={key} data-key={key} title={`:${emoji.name}:`} data-emoji-name={emoji.name} onClick={() => pick(i)}>
                <EmojiGlyph {...emoji} deferImage={!inView.has(key)} />
              </button>
            );
          })}
        </div>
        {results[0] && <div class="emoji-name">:{results[0].name}:</div>}
      </div>
    </div>
  );
}

/**
 * The keys (`data-key`) of the grid's buttons that have come within a row of its visible part, so
 * the picker asks for the images of those only (not left to the browser's lazy-loading distance,
 * which for a scrolled box differs between versions and loads most of a 240-emoji list at once).
 * `shown` names what the grid shows; the buttons are observed again when it changes.
 */
function useEmojiInView(grid: { current: HTMLElement | null }, shown: string): ReadonlySet<string> {
  const [inView, setInView] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => {
    const root = grid.current;
    if (!root) return;
    const observer = new IntersectionObserver(
      (entries) => {
        const seen = entries.flatMap((entry) => (entry.isIntersecting && entry.target instanceof HTMLElement && entry.target.dataset.key) || []);
        if (seen.length > 0) setInView((before) => new Set([...before, ...seen]));
      },
      { root, rootMargin: "0px 0px 40px 0px" },
    );
    for (const button of root.children) observer.observe(button);
    return () => observer.disconnect();
  }, [grid, shown]);
  return inView;
}
