import { type Message, settings, userName } from "../state.js";
import { EmojiGlyph } from "./EmojiGlyph.js";
import { myUserId } from "../api.js";
import { toggleReaction } from "../actions.js";

/** A message's reactions, one chip per emoji with its count. */
export function Reactions({ m }: { m: Message }) {
  if (m.reactions.length === 0) return null;
  const groups = new Map<string, { name: string; code: string; type: string; users: number[] }>();
  for (const r of m.reactions) {
    const key = `${r.reaction_type}:${r.emoji_code}`;
    const g = groups.get(key) ?? { name: r.emoji_name, code: r.emoji_code, type: r.reaction_type, users: [] };
    g.users.push(r.user_id);
    groups.set(key, g);
  }
  return (
    <div class="reactions">
      {[...groups.values()].map((g) => {
        const glyph = settings.value.emojiset === "text" ? `:${g.name}:` : <EmojiGlyph name={g.name} code={g.code} type={g.type} />;
        return (
          <button
            type="button"
            key={g.code}
            class={`reaction ${g.users.includes(myUserId) ? "mine" : ""}`}
            title={`${g.users.map(userName).join(", ")} reacted with :${g.name}:`}
            onClick={() => toggleReaction(m, g.name, g.code, g.type)}
          >
            {glyph} <span class="n">{g.users.length}</span>
          </button>
        );
      })}
    </div>
  );
}
