import { signal } from "@preact/signals";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.js";
import type { GroupSetting } from "../channels.js";
import { userName, users } from "../state.js";

/**
 * Pickers for the channels overlay: people (a search box with suggestions) and group settings
 * (a system or named group, or a custom set of people and groups, as Zulip's group setting pills).
 */

export interface NamedGroup {
  id: number;
  name: string;
  is_system_group: boolean;
  deactivated?: boolean;
}

/** The organization's groups with their names (GET /user_groups), fetched once. */
const namedGroups = signal<NamedGroup[] | null>(null);
let groupsRequested = false;

export function useNamedGroups(): NamedGroup[] {
  useEffect(() => {
    if (groupsRequested) return;
    groupsRequested = true;
    void api.get<{ user_groups: NamedGroup[] }>("/user_groups").then(
      (body) => (namedGroups.value = body.user_groups),
      () => (groupsRequested = false),
    );
  }, []);
  return namedGroups.value ?? [];
}

/** Zulip's names for its system groups, in the order its menus list them. */
const SYSTEM_GROUP_LABELS: Array<[string, string]> = [
  ["role:everyone", "Everyone including guests"],
  ["role:members", "Everyone except guests"],
  ["role:fullmembers", "Full members"],
  ["role:moderators", "Moderators"],
  ["role:administrators", "Administrators"],
  ["role:owners", "Owners"],
  ["role:nobody", "Nobody"],
];

export function groupLabel(groups: NamedGroup[], id: number): string {
  const group = groups.find((g) => g.id === id);
  if (!group) return `Group ${id}`;
  return SYSTEM_GROUP_LABELS.find(([name]) => name === group.name)?.[1] ?? group.name;
}

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
export function GroupSettingPicker({
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
  const groups = useNamedGroups();
  const system = SYSTEM_GROUP_LABELS.map(([groupName, text]) => [groups.find((g) => g.name === groupName)?.id, text] as const).filter(
    (entry): entry is readonly [number, string] => entry[0] !== undefined,
  );
  const named = groups.filter((g) => !g.is_system_group && !g.deactivated);
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
          {system.map(([id, text]) => (
            <option key={id} value={String(id)}>
              {text}
            </option>
          ))}
          {typeof value === "number" && !system.some(([id]) => id === value) && !named.some((g) => g.id === value) && (
            <option value={String(value)}>{groupLabel(groups, value)}</option>
          )}
          {named.map((g) => (
            <option key={g.id} value={String(g.id)}>
              {g.name}
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
              ...custom.direct_subgroups.map((id) => ({ key: `group:${id}`, text: groupLabel(groups, id) })),
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
