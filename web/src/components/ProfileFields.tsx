import { useState } from "preact/hooks";
import { api } from "../api.js";
import { profileFields, type ProfileField } from "../personal.js";
import { attempt, Group } from "./forms.js";
import "./admin.css";

/**
 * Custom profile fields (#organization/profile-field-settings): the organization's fields in
 * order, each editable, movable and deletable, and a form for a new one of any of Zulip's types.
 * The list comes from /register and custom_profile_fields events (personal.ts).
 */
const FIELD_TYPES: Array<[number, string]> = [
  [1, "Short text"],
  [2, "Long text"],
  [3, "List of options"],
  [4, "Date picker"],
  [5, "Link"],
  [6, "Users"],
  [7, "External account"],
  [8, "Pronouns"],
];
const SELECT = 3;
const EXTERNAL = 7;

type Choice = { key: string; text: string };

/** A field's field_data: an external account's subtype and URL pattern, or a list's options by key. */
type FieldData = { subtype?: string; url_pattern?: string; [key: string]: unknown };

function parseData(field: ProfileField): FieldData {
  try {
    return field.field_data ? (JSON.parse(field.field_data) as FieldData) : {};
  } catch {
    return {};
  }
}

function choicesOf(data: FieldData): Choice[] {
  return (Object.entries(data) as Array<[string, { text?: string; order?: string | number }]>)
    .sort(([, a], [, b]) => Number(a.order) - Number(b.order))
    .map(([key, c]) => ({ key, text: String(c.text) }));
}

function choicesData(choices: Choice[]): Record<string, { text: string; order: string }> {
  return Object.fromEntries(choices.filter((c) => c.text.trim()).map((c, i) => [c.key, { text: c.text.trim(), order: String(i + 1) }]));
}

function ChoicesEditor({ choices, onChange }: { choices: Choice[]; onChange: (choices: Choice[]) => void }) {
  const nextKey = () => String(Math.max(-1, ...choices.map((c) => Number(c.key)).filter((n) => !Number.isNaN(n))) + 1);
  return (
    <div class="choices">
      <span class="hint">Options</span>
      {choices.map((c, i) => (
        <div class="row" key={c.key}>
          <input
            aria-label={`Option ${i + 1}`}
            name="choice"
            value={c.text}
            onInput={(e) => onChange(choices.map((x) => (x.key === c.key ? { ...x, text: e.currentTarget.value } : x)))}
          />
          <button type="button" aria-label={`Remove option ${i + 1}`} onClick={() => onChange(choices.filter((x) => x.key !== c.key))}>
            ×
          </button>
        </div>
      ))}
      <button type="button" class="add-choice" onClick={() => onChange([...choices, { key: nextKey(), text: "" }])}>
        Add option
      </button>
    </div>
  );
}

/** The external account kinds Zulip knows, and "custom" with a URL pattern. */
function ExternalAccountEditor({ data, onChange, fixedSubtype }: { data: FieldData; onChange: (d: FieldData) => void; fixedSubtype?: boolean }) {
  return (
    <>
      <label class="field">
        <span>External account type</span>
        <select name="subtype" disabled={fixedSubtype} value={data.subtype ?? "github"} onChange={(e) => onChange({ subtype: e.currentTarget.value })}>
          <option value="github">GitHub</option>
          <option value="twitter">Twitter</option>
          <option value="custom">Custom</option>
        </select>
      </label>
      {data.subtype === "custom" && (
        <label class="field">
          <span>URL pattern (with %(username)s)</span>
          <input
            name="url_pattern"
            value={data.url_pattern ?? ""}
            placeholder="https://example.com/%(username)s"
            onInput={(e) => onChange({ ...data, url_pattern: e.currentTarget.value })}
          />
        </label>
      )}
    </>
  );
}

function FieldEditor({ field, onDone }: { field: ProfileField; onDone: () => void }) {
  const original = parseData(field);
  const [name, setName] = useState(field.name);
  const [hint, setHint] = useState(field.hint);
  const [choices, setChoices] = useState(choicesOf(field.type === SELECT ? original : {}));
  const [external, setExternal] = useState(original);
  const [required, setRequired] = useState(!!field.required);
  const [summary, setSummary] = useState(!!field.display_in_profile_summary);
  const isDefaultAccount = field.type === EXTERNAL && original.subtype !== "custom";
  return (
    <form
      class="profile-field-editor"
      onSubmit={(e) => {
        e.preventDefault();
        void (async () => {
          const changes: Record<string, unknown> = { required, display_in_profile_summary: summary };
          if (!isDefaultAccount) Object.assign(changes, { name, hint });
          if (field.type === SELECT) changes.field_data = choicesData(choices);
          if (field.type === EXTERNAL && !isDefaultAccount) changes.field_data = external;
          if (await attempt(() => api.patch(`/realm/profile_fields/${field.id}`, changes as Record<string, string>))) onDone();
        })();
      }}
    >
      <label class="field">
        <span>Label</span>
        <input name="name" value={name} disabled={isDefaultAccount} maxLength={40} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label class="field">
        <span>Hint</span>
        <input name="hint" value={hint} disabled={isDefaultAccount} maxLength={80} onInput={(e) => setHint(e.currentTarget.value)} />
      </label>
      {field.type === SELECT && <ChoicesEditor choices={choices} onChange={setChoices} />}
      {field.type === EXTERNAL && !isDefaultAccount && <ExternalAccountEditor data={external} onChange={setExternal} fixedSubtype />}
      <label class="check">
        <input type="checkbox" name="required" checked={required} onChange={(e) => setRequired(e.currentTarget.checked)} />
        Required
      </label>
      <label class="check">
        <input type="checkbox" name="display_in_profile_summary" checked={summary} onChange={(e) => setSummary(e.currentTarget.checked)} />
        Display in profile summary
      </label>
      <div class="row">
        <button type="submit">Save changes</button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function NewField() {
  const [type, setType] = useState(1);
  const [name, setName] = useState("");
  const [hint, setHint] = useState("");
  const [choices, setChoices] = useState<Choice[]>([{ key: "0", text: "" }]);
  const [external, setExternal] = useState<FieldData>({ subtype: "github" });
  const defaultAccount = type === EXTERNAL && external.subtype !== "custom";
  return (
    <form
      class="new-profile-field"
      onSubmit={(e) => {
        e.preventDefault();
        void (async () => {
          const params: Record<string, unknown> = { field_type: type, name: defaultAccount ? "" : name, hint: defaultAccount ? "" : hint };
          if (type === SELECT) params.field_data = choicesData(choices);
          if (type === EXTERNAL) params.field_data = external;
          if (await attempt(() => api.once.post("/realm/profile_fields", params as Record<string, string>), "Added")) {
            setName("");
            setHint("");
            setChoices([{ key: "0", text: "" }]);
          }
        })();
      }}
    >
      <label class="field">
        <span>Type</span>
        <select name="field_type" value={String(type)} onChange={(e) => setType(Number(e.currentTarget.value))}>
          {FIELD_TYPES.map(([v, text]) => (
            <option key={v} value={String(v)}>
              {text}
            </option>
          ))}
        </select>
      </label>
      {type === EXTERNAL && <ExternalAccountEditor data={external} onChange={setExternal} />}
      {!defaultAccount && (
        <>
          <label class="field">
            <span>Label</span>
            <input name="name" value={name} maxLength={40} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <label class="field">
            <span>Hint (optional)</span>
            <input name="hint" value={hint} maxLength={80} onInput={(e) => setHint(e.currentTarget.value)} />
          </label>
        </>
      )}
      {type === SELECT && <ChoicesEditor choices={choices} onChange={setChoices} />}
      <button type="submit" disabled={!defaultAccount && !name.trim()}>
        Add field
      </button>
    </form>
  );
}

export function ProfileFields() {
  const [editing, setEditing] = useState<number | null>(null);
  const list = profileFields.value;
  const move = (index: number, by: number) => {
    const order = list.map((f) => f.id);
    order.splice(index + by, 0, ...order.splice(index, 1));
    void attempt(() => api.patch("/realm/profile_fields", { order }), "Reordered");
  };
  return (
    <>
      <Group title="Profile fields">
        {list.length === 0 && <p class="hint">No custom profile fields yet.</p>}
        <ul class="profile-fields admin-list">
          {list.map((f, i) => (
            <li key={f.id} data-field-id={f.id}>
              {editing === f.id ? (
                <FieldEditor field={f} onDone={() => setEditing(null)} />
              ) : (
                <div class="admin-list-row">
                  <span class="name">{f.name}</span>
                  <span class="hint type">{FIELD_TYPES.find(([v]) => v === f.type)?.[1] ?? f.type}</span>
                  {f.required && <span class="badge">Required</span>}
                  <span class="actions">
                    <button type="button" aria-label={`Move ${f.name} up`} disabled={i === 0} onClick={() => move(i, -1)}>
                      ↑
                    </button>
                    <button type="button" aria-label={`Move ${f.name} down`} disabled={i === list.length - 1} onClick={() => move(i, 1)}>
                      ↓
                    </button>
                    <button type="button" class="edit" onClick={() => setEditing(f.id)}>
                      Edit
                    </button>
                    <button
                      type="button"
                      class="delete"
                      onClick={() =>
                        confirm(`Delete the field ${f.name}? Everyone's values of it go too.`) &&
                        void attempt(() => api.del(`/realm/profile_fields/${f.id}`), "Deleted")
                      }
                    >
                      Delete
                    </button>
                  </span>
                </div>
              )}
            </li>
          ))}
        </ul>
      </Group>
      <Group title="Add a profile field">
        <NewField />
      </Group>
    </>
  );
}
