import { useState } from "preact/hooks";
import type { GroupSetting } from "../channels.js";
import { userName, users } from "../state.js";
import { groupLabel, namedGroups } from "./GroupSettingPicker.js";

/**
 * Pickers for the channels overlay's forms: people (a search box with suggestions) and a group
 * setting as a form value (a system or named group, or a custom set of people and groups, as
 * Zulip's group setting pills). The organization settings' picker, which saves each change at
 * once, is GroupSettingPicker; both name groups the same way (namedGroups, groupLabel).
 */

/** A person chosen by typing part of a name or email. */
export function PeoplePicker({ exclude, onPick, label }: { exclude: ReadonlySet<number>; onPick: (id: number) => void; label: string }) {
  const [query, setQuery] = useState("");
  const q = query.trim().toLowerCase();
  const matches =
    q === ""
      ? []
      : [...users.value.values()]
          .filter((u) => u.is_active !== false && !exclude.has(u.user_id))
          .filter((u) => u.full_name.toLowerCase().includes(q) || u.email.toLowerCase().includes(q))
          .sort((a, b) => a.full_name.localeCompare(b.full_name))
          .slice(0, 6);
  return (
    <div class="people-picker">
      <input type="search" placeholder="Add a person…" aria-label={label} value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
      {matches.length > 0 && (
        <ul class="suggestions" role="listbox">
          {matches.map((u) => (
            <li key={u.user_id}>
              <button
                type="button"
                role="option"
                aria-selected={false}
                data-user-id={u.user_id}
                onClick={() => {
                  onPick(u.user_id);
                  setQuery("");
                }}
              >
                {u.full_name} <span class="email">{u.email}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Chips with a remove button each. */
export function Pills({ items, onRemove }: { items: Array<{ key: string; text: string }>; onRemove?: (key: string) => void }) {
  return (
    <ul class="pills">
      {items.map((item) => (
        <li key={item.key} class="pill" data-key={item.key}>
          {item.text}
          {onRemove && (
            <button type="button" aria-label={`Remove ${item.text}`} onClick={() => onRemove(item.key)}>
              ×
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}

const CUSTOM = "custom";

/** One group setting: a group from the menu, or "Custom" with people and groups as pills. */
export function GroupSettingField({
  name,
  label,
  value,
  disabled,
  onChange,
}: {
  name: string;
  label: string;
  value: GroupSetting | undefined;
  disabled: boolean;
  onChange: (value: GroupSetting) => void;
}) {
  const options = namedGroups();
  const custom = typeof value === "object" ? value : null;
  const selected = typeof value === "number" ? String(value) : CUSTOM;
  return (
    <div class="group-setting" data-setting={name}>
      <label class="field">
        <span>{label}</span>
        <select
          name={name}
          value={selected}
          disabled={disabled}
          onChange={(e) => {
            const raw = e.currentTarget.value;
            onChange(raw === CUSTOM ? { direct_members: [], direct_subgroups: [] } : Number(raw));
          }}
        >
          {typeof value === "number" && !options.some((g) => g.id === value) && <option value={String(value)}>{groupLabel(value)}</option>}
          {options.map((g) => (
            <option key={g.id} value={String(g.id)}>
              {g.label}
            </option>
          ))}
          <option value={CUSTOM}>Custom: chosen people and groups</option>
        </select>
      </label>
      {custom && (
        <div class="custom-group">
          <Pills
            items={[
              ...custom.direct_members.map((id) => ({ key: `user:${id}`, text: userName(id) })),
              ...custom.direct_subgroups.map((id) => ({ key: `group:${id}`, text: groupLabel(id) })),
            ]}
            onRemove={
              disabled
                ? undefined
                : (key) => {
                    const [kind, id] = key.split(":");
                    onChange({
                      direct_members: custom.direct_members.filter((m) => kind !== "user" || m !== Number(id)),
                      direct_subgroups: custom.direct_subgroups.filter((g) => kind !== "group" || g !== Number(id)),
                    });
                  }
            }
          />
          {!disabled && (
            <PeoplePicker
              label={`${label}: add a person`}
              exclude={new Set(custom.direct_members)}
              onPick={(id) => onChange({ ...custom, direct_members: [...custom.direct_members, id] })}
            />
          )}
        </div>
      )}
    </div>
  );
}
