import { ownKeys } from "./Menu.js";
import { type Message, settings, userName } from "../state.js";
import { EmojiGlyph } from "./EmojiGlyph.js";
import { myUserId } from "../api.js";
import { toggleReaction } from "../actions.js";
import { needsAccount } from "../visitor.js";

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
    <div class="reactions" role="presentation" onKeyDown={ownKeys}>
      {[...groups.values()].map((g) => {
        const mine = g.users.includes(myUserId);
        const others = g.users.length;
        const label = mine
          ? `Remove your :${g.name}: reaction${others > 1 ? `, ${others} people reacted` : ""}`
          : `React with :${g.name}:, ${others} ${others === 1 ? "person" : "people"} reacted`;
        const glyph = settings.value.emojiset === "text" ? `:${g.name}:` : <EmojiGlyph name={g.name} code={g.code} type={g.type} />;
        return (
          <button
            type="button"
            key={g.code}
            class={`reaction ${mine ? "mine" : ""}`}
            title={`${g.users.map(userName).join(", ")} reacted with :${g.name}:`}
            aria-label={label}
            aria-pressed={mine}
            onClick={() => needsAccount() || toggleReaction(m, g.name, g.code, g.type)}
          >
            {glyph} <span class="n">{g.users.length}</span>
          </button>
        );
      })}
    </div>
  );
}
