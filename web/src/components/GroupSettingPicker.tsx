import { useState } from "preact/hooks";
import { userGroups, userName, users } from "../state.js";
import "./admin.css";

/**
 * A group-based permission (Zulip's group settings): a named group (a role's system group or a
 * custom group), or an anonymous group of chosen people and groups. Saved with Zulip's
 * `{"new": ..., "old": ...}` format, so a concurrent change is refused rather than overwritten.
 */
export type GroupSettingValue = number | { direct_members: number[]; direct_subgroups: number[] };

/** What Zulip calls the system groups in its settings. */
const SYSTEM_GROUP_LABELS: Record<string, string> = {
  "role:internet": "Everyone on the internet",
  "role:everyone": "Everyone including guests",
  "role:members": "Everyone except guests",
  "role:fullmembers": "Full members",
  "role:moderators": "Moderators",
  "role:administrators": "Administrators",
  "role:owners": "Owners",
  "role:nobody": "Nobody",
};
const SYSTEM_ORDER = Object.keys(SYSTEM_GROUP_LABELS);

export function groupLabel(id: number): string {
  const group = userGroups.value.get(id);
  if (!group) return `Group ${id}`;
  return group.is_system_group ? (SYSTEM_GROUP_LABELS[group.name ?? ""] ?? group.name ?? "") : (group.name ?? "");
}

/** Named groups a setting can take: system groups by role, then custom groups by name. */
export function namedGroups(): Array<{ id: number; label: string; system: boolean }> {
  const all = [...userGroups.value.values()].filter((g) => !g.deactivated && g.name);
  const system = all
    .filter((g) => g.is_system_group && g.name !== "role:internet")
    .sort((a, b) => SYSTEM_ORDER.indexOf(a.name!) - SYSTEM_ORDER.indexOf(b.name!))
    .map((g) => ({ id: g.id, label: groupLabel(g.id), system: true }));
  const custom = all
    .filter((g) => !g.is_system_group)
    .sort((a, b) => a.name!.localeCompare(b.name!))
    .map((g) => ({ id: g.id, label: g.name!, system: false }));
  return [...system, ...custom];
}

export function GroupSettingPicker({
  name,
  label,
  value,
  save,
  systemOnly = false,
}: {
  name: string;
  label: string;
  value: GroupSettingValue | undefined;
  /** Sends the change (whether it succeeded); the value shown comes back through events. */
  save: (change: { new: GroupSettingValue; old: GroupSettingValue | undefined }) => Promise<boolean>;
  systemOnly?: boolean;
}) {
  const anonymous = value !== undefined && typeof value !== "number";
  const [editing, setEditing] = useState<{ direct_members: number[]; direct_subgroups: number[] } | null>(null);
  const options = namedGroups().filter((g) => !systemOnly || g.system);
  const draft = editing ?? (anonymous ? value : null);
  const people = [...users.value.values()].filter((u) => !u.is_bot && u.is_active !== false).sort((a, b) => a.full_name.localeCompare(b.full_name));
  return (
    <div class="group-setting" data-setting={name}>
      <label class="field">
        <span>{label}</span>
        <select
          name={name}
          value={draft ? "custom" : typeof value === "number" ? String(value) : ""}
          onChange={(e) => {
            const raw = e.currentTarget.value;
            if (raw === "custom") setEditing(anonymous ? value : { direct_members: [], direct_subgroups: typeof value === "number" ? [value] : [] });
            else {
              setEditing(null);
              void save({ new: Number(raw), old: value });
            }
          }}
        >
          {value === undefined && <option value="">—</option>}
          {options.map((g) => (
            <option key={g.id} value={String(g.id)}>
              {g.label}
            </option>
          ))}
          {!systemOnly && <option value="custom">Custom: chosen people and groups</option>}
        </select>
      </label>
      {draft && (
        <div class="group-setting-custom">
          <ul class="pills">
            {draft.direct_subgroups.map((id) => (
              <li key={`g${id}`} class="pill group">
                {groupLabel(id)}
                <button
                  type="button"
                  aria-label={`Remove ${groupLabel(id)}`}
                  onClick={() => setEditing({ ...draft, direct_subgroups: draft.direct_subgroups.filter((x) => x !== id) })}
                >
                  ×
                </button>
              </li>
            ))}
            {draft.direct_members.map((id) => (
              <li key={`u${id}`} class="pill">
                {userName(id)}
                <button
                  type="button"
                  aria-label={`Remove ${userName(id)}`}
                  onClick={() => setEditing({ ...draft, direct_members: draft.direct_members.filter((x) => x !== id) })}
                >
                  ×
                </button>
              </li>
            ))}
          </ul>
          <div class="row">
            <select
              aria-label={`Add to ${label}`}
              name={`${name}_add`}
              value=""
              onChange={(e) => {
                const [kind, id] = e.currentTarget.value.split(":");
                if (kind === "g") setEditing({ ...draft, direct_subgroups: [...new Set([...draft.direct_subgroups, Number(id)])] });
                if (kind === "u") setEditing({ ...draft, direct_members: [...new Set([...draft.direct_members, Number(id)])] });
              }}
            >
              <option value="">Add a person or group…</option>
              <optgroup label="Groups">
                {options
                  .filter((g) => !draft.direct_subgroups.includes(g.id))
                  .map((g) => (
                    <option key={g.id} value={`g:${g.id}`}>
                      {g.label}
                    </option>
                  ))}
              </optgroup>
              <optgroup label="People">
                {people
                  .filter((u) => !draft.direct_members.includes(u.user_id))
                  .map((u) => (
                    <option key={u.user_id} value={`u:${u.user_id}`}>
                      {u.full_name}
                    </option>
                  ))}
              </optgroup>
            </select>
            <button type="button" class="primary" onClick={() => void save({ new: draft, old: value }).then((ok) => ok && setEditing(null))}>
              Save
            </button>
            {editing && (
              <button type="button" onClick={() => setEditing(null)}>
                Cancel
              </button>
            )}
          </div>
        </div>
      )}
    </div>
  );
}
