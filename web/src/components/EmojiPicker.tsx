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
  const close = () => (closeEmojiPicker(), setQuery(""), setEnterPending(false));
  if (!p) return null;
  return (
    // A click on the backdrop closes; from the keyboard, Esc in the search field does.
    <div class="emoji-backdrop" role="presentation" onClick={(e) => e.target === e.currentTarget && close()}>
      <div class="emoji-picker" role="dialog" aria-label="Emoji picker" style={{ top: `${p.top}px`, left: `${p.left}px` }}>
        <input
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
        <div class="emoji-grid">
          {results.map((emoji, i) => (
            <button type="button" key={`${emoji.type}:${emoji.code}`} title={`:${emoji.name}:`} data-emoji-name={emoji.name} onClick={() => pick(i)}>
              <EmojiGlyph {...emoji} />
            </button>
          ))}
        </div>
        {results[0] && <div class="emoji-name">:{results[0].name}:</div>}
      </div>
    </div>
  );
}
