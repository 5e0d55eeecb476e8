import { useRef, useState } from "preact/hooks";
import { dmTo } from "../composeState.js";
import { matchRecipients } from "../composeTypeahead.js";
import { userName, users } from "../state.js";
import { noteDraftChange } from "../composeDrafts.js";

/**
 * The recipients of a direct message, as Zulip's compose box has them: a pill per person and a
 * field that suggests people by name or email as one types. Enter, Tab or a click adds the chosen
 * one; Backspace in the empty field removes the last pill; Esc closes the suggestions. Changing the
 * recipients keeps the text typed (it is the same draft, now bound for them).
 */
function setRecipients(ids: number[]): void {
  dmTo.value = ids;
  noteDraftChange();
}

export function RecipientPills() {
  const input = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState("");
  const [index, setIndex] = useState(0);
  const [dismissed, setDismissed] = useState(false);
  const chosen = dmTo.value ?? [];
  // Everyone active can be written to, bots and oneself included (as in Zulip).
  const matches = dismissed ? [] : matchRecipients(query, users.value.values(), chosen);
  const active = Math.min(index, Math.max(0, matches.length - 1));
  const add = (id: number) => {
    setRecipients([...chosen, id]);
    setQuery("");
    setIndex(0);
  };
  const remove = (id: number) => setRecipients(chosen.filter((c) => c !== id));
  return (
    <div class="recipient-pills">
      <span class="dm-label">To:</span>
      {chosen.map((id) => (
        <span class="pill" key={id} data-user-id={id}>
          <span class="pill-name">{userName(id)}</span>
          <button type="button" class="pill-remove" aria-label={`Remove ${userName(id)}`} onClick={() => (remove(id), input.current?.focus())}>
            ×
          </button>
        </span>
      ))}
      <span class="pill-field">
        <input
          ref={input}
          type="text"
          aria-label="Direct message recipients"
          placeholder={chosen.length === 0 ? "Add one or more people" : ""}
          autocomplete="off"
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={matches.length > 0}
          aria-controls={matches.length > 0 ? "recipient-suggestions" : undefined}
          aria-activedescendant={matches.length > 0 ? `recipient-${matches[active]!.user_id}` : undefined}
          value={query}
          onInput={(e) => {
            setQuery(e.currentTarget.value);
            setIndex(0);
            setDismissed(false);
          }}
          onBlur={() => setDismissed(true)}
          onFocus={() => setDismissed(false)}
          onKeyDown={(e) => {
            if (e.isComposing) return;
            const open = matches.length > 0;
            if (open && (e.key === "ArrowDown" || e.key === "ArrowUp")) {
              setIndex((active + (e.key === "ArrowDown" ? 1 : matches.length - 1)) % matches.length);
            } else if (open && (e.key === "Enter" || e.key === "Tab" || e.key === ",")) {
              add(matches[active]!.user_id);
            } else if (open && e.key === "Escape") {
              setDismissed(true);
            } else if (e.key === "Backspace" && query === "" && chosen.length > 0) {
              remove(chosen[chosen.length - 1]!);
            } else if (e.key === "Enter") {
              // Enter in an empty field moves on to the message, as after choosing a person.
              document.querySelector<HTMLTextAreaElement>(".compose textarea")?.focus();
            } else return;
            e.preventDefault();
            e.stopPropagation();
          }}
        />
        {matches.length > 0 && (
          <ul class="compose-typeahead recipient-typeahead" id="recipient-suggestions" role="listbox" aria-label="People">
            {matches.map((p, i) => (
              <li
                key={p.user_id}
                id={`recipient-${p.user_id}`}
                role="option"
                aria-selected={i === active}
                class={i === active ? "active" : ""}
                onMouseDown={(e) => (e.preventDefault(), add(p.user_id))}
              >
                <span class="ta-name">{p.full_name}</span> <span class="ta-detail">{p.email}</span>
              </li>
            ))}
          </ul>
        )}
      </span>
    </div>
  );
}
