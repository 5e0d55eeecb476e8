import { Role } from "../../../src/contract/constants.js";
import { signal } from "@preact/signals";
import { useEffect, useState } from "preact/hooks";
import { answerError, api, type Envelope, myUserId } from "../api.js";
import { realm, realmEmoji, realmName, userName, users } from "../state.js";
import { attempt, Group, saved, SettingsFrame } from "./forms.js";
import { OrganizationSettings, Permissions } from "./AdminPermissions.js";
import { Bots } from "./Bots.js";
import { ProfileFields } from "./ProfileFields.js";
import { RealmIconUpload } from "./ImageUpload.js";

/**
 * Organization administration, at Zulip's hashes (#organization/<section>): a chunk of its own,
 * loaded the first time it opens. Owners and administrators only: others see a notice (the
 * server refuses their changes anyway). Changes go through Zulip's API (PATCH /json/realm,
 * /json/users/{id}, /json/invites, /json/realm/filters, /json/realm/emoji); what the app shows
 * comes back through the events, or is fetched again after a change (invitations, linkifiers).
 */
const ADMIN_SECTIONS: Array<[string, string]> = [
  ["organization-profile", "Organization profile"],
  ["organization-settings", "Organization settings"],
  ["organization-permissions", "Organization permissions"],
  ["profile-field-settings", "Custom profile fields"],
  ["users", "Users"],
  ["deactivated", "Deactivated users"],
  ["invites-list-admin", "Invitations"],
  ["emoji-settings", "Custom emoji"],
  ["linkifier-settings", "Linkifiers"],
  ["bot-list-admin", "Bots"],
];

export const ROLE_NAMES: Array<[number, string]> = [
  [Role.OWNER, "Owner"],
  [Role.ADMINISTRATOR, "Administrator"],
  [Role.MODERATOR, "Moderator"],
  [Role.MEMBER, "Member"],
  [Role.GUEST, "Guest"],
];

export function isAdmin(): boolean {
  const role = users.value.get(myUserId)?.role ?? Role.MEMBER;
  return role <= Role.ADMINISTRATOR;
}

/** Every account of the organization, active or not (GET /json/users), kept fresh by realm_user events. */
interface Account {
  user_id: number;
  full_name: string;
  email: string;
  role: number;
  is_active: boolean;
  is_bot: boolean;
}
const accounts = signal<Account[] | null>(null);

async function loadAccounts(): Promise<void> {
  const { members } = await api.get<{ members: Account[] }>("/users");
  accounts.value = members;
}

function useAccounts(): Account[] {
  useEffect(() => void loadAccounts().catch((e) => (saved.value = { text: (e as Error).message, error: true })), []);
  // Events update `users` (role, is_active): merge them over the fetched list.
  const live = users.value;
  return (accounts.value ?? []).map((a) => ({ ...a, ...(live.get(a.user_id) as Partial<Account> | undefined) }));
}

function UsersList({ active }: { active: boolean }) {
  const list = useAccounts()
    .filter((a) => a.is_active === active && !a.is_bot)
    .sort((a, b) => a.full_name.localeCompare(b.full_name));
  // Fetched again after success and failure alike: a refused role change puts the select back.
  const act = (action: () => Promise<unknown>, done: string) => attempt(() => action().finally(loadAccounts), done);
  // Only owners make, unmake or deactivate owners (Zulip's rule; the server enforces it).
  const amOwner = (users.value.get(myUserId)?.role ?? 400) === 100;
  return (
    <table class="admin-users">
      <thead>
        <tr>
          <th>Name</th>
          <th>Email</th>
          <th>Role</th>
          <th>Actions</th>
        </tr>
      </thead>
      <tbody>
        {list.map((a) => (
          <tr key={a.user_id} data-user-id={a.user_id}>
            <td class="name">{a.full_name}</td>
            <td class="email">{a.email}</td>
            <td>
              {active ? (
                <select
                  name="role"
                  aria-label={`Role of ${a.full_name}`}
                  value={String(a.role)}
                  disabled={a.user_id === myUserId || (a.role === Role.OWNER && !amOwner)}
                  onChange={(e) => void act(() => api.patch(`/users/${a.user_id}`, { role: Number(e.currentTarget.value) }), "Role changed")}
                >
                  {ROLE_NAMES.map(([v, text]) => (
                    <option key={v} value={String(v)} disabled={v === 100 && !amOwner}>
                      {text}
                    </option>
                  ))}
                </select>
              ) : (
                (ROLE_NAMES.find(([v]) => v === a.role)?.[1] ?? "")
              )}
            </td>
            <td>
              {active ? (
                a.user_id !== myUserId &&
                (a.role !== 100 || amOwner) && (
                  <button
                    type="button"
                    class="deactivate"
                    onClick={() => confirm(`Deactivate ${a.full_name}?`) && void act(() => api.del(`/users/${a.user_id}`), "Deactivated")}
                  >
                    Deactivate
                  </button>
                )
              ) : (
                <button type="button" class="reactivate" onClick={() => void act(() => api.post(`/users/${a.user_id}/reactivate`), "Reactivated")}>
                  Reactivate
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

interface Invitation {
  id: number;
  email?: string;
  invited_by_user_id: number;
  invited: number;
  expiry_date: number | null;
  invited_as: number;
  is_multiuse: boolean;
  link_url?: string;
}

function Invites() {
  const [list, setList] = useState<Invitation[] | null>(null);
  const load = () =>
    api
      .get<{ invites: Invitation[] }>("/invites")
      .then((r) => setList(r.invites))
      .catch((e) => (saved.value = { text: (e as Error).message, error: true }));
  useEffect(() => void load(), []);
  if (!list) return <p class="status">Loading…</p>;
  return (
    <Group title="Pending invitations">
      {list.length === 0 && <p class="hint">No pending invitations.</p>}
      <ul class="admin-invites">
        {list.map((i) => (
          <li key={`${i.is_multiuse}-${i.id}`} data-invite-id={i.id}>
            <span class="who">{i.is_multiuse ? "Reusable link" : i.email}</span>
            <span class="hint">
              {" "}
              as {ROLE_NAMES.find(([v]) => v === i.invited_as)?.[1] ?? "Member"}, by {userName(i.invited_by_user_id)},{" "}
              {i.expiry_date ? `expires ${new Date(i.expiry_date * 1000).toLocaleDateString()}` : "never expires"}
            </span>
            <button
              type="button"
              onClick={() =>
                void attempt(async () => (await api.del(i.is_multiuse ? `/invites/multiuse/${i.id}` : `/invites/${i.id}`), await load()), "Revoked")
              }
            >
              Revoke
            </button>
          </li>
        ))}
      </ul>
    </Group>
  );
}

/** The realm's description comes rendered in /register and raw in events: shown as text either way. */
function plainText(html: string): string {
  // DOMParser: an inert document (no image loads, no handlers), unlike innerHTML on an element.
  return new DOMParser().parseFromString(html, "text/html").body.textContent ?? "";
}

function Profile() {
  const [name, setName] = useState(realmName.value);
  const [description, setDescription] = useState(() => plainText((realm.value.realm_description as string | undefined) ?? ""));
  return (
    <Group title="Organization profile">
      <RealmIconUpload />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void attempt(() => api.patch("/realm", { name, description }));
        }}
      >
        <label class="field wide">
          <span>Organization name</span>
          <input name="realm_name" value={name} maxLength={40} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label class="field wide">
          <span>Organization description</span>
          <textarea name="realm_description" rows={4} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={!name.trim()}>
          Save changes
        </button>
      </form>
    </Group>
  );
}

interface Linkifier {
  id: number;
  pattern: string;
  url_template: string;
}

function LinkifierRow({ linkifier: l, index, count, reload }: { linkifier: Linkifier; index: number; count: number; reload: () => Promise<unknown> }) {
  const [editing, setEditing] = useState(false);
  const [pattern, setPattern] = useState(l.pattern);
  const [template, setTemplate] = useState(l.url_template);
  const move = (by: number) => {
    const ids = (realm.value.realm_linkifiers as Linkifier[]).map((x) => x.id);
    ids.splice(index, 1);
    ids.splice(index + by, 0, l.id);
    void attempt(async () => (await api.patch("/realm/linkifiers", { ordered_linkifier_ids: ids }), await reload()), "Reordered");
  };
  if (editing)
    return (
      <tr data-linkifier-id={l.id} class="editing">
        <td colSpan={3}>
          <form
            class="row"
            onSubmit={(e) => {
              e.preventDefault();
              void (async () => {
                if (await attempt(async () => (await api.patch(`/realm/filters/${l.id}`, { pattern, url_template: template }), await reload())))
                  setEditing(false);
              })();
            }}
          >
            <input name="edit_pattern" aria-label="Pattern" value={pattern} onInput={(e) => setPattern(e.currentTarget.value)} />
            <input name="edit_url_template" aria-label="URL template" value={template} onInput={(e) => setTemplate(e.currentTarget.value)} />
            <button type="submit" disabled={!pattern || !template}>
              Save
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </form>
        </td>
      </tr>
    );
  return (
    <tr data-linkifier-id={l.id}>
      <td class="pattern">
        <code>{l.pattern}</code>
      </td>
      <td class="template">
        <code>{l.url_template}</code>
      </td>
      <td class="actions">
        <button type="button" aria-label={`Move ${l.pattern} up`} disabled={index === 0} onClick={() => move(-1)}>
          ↑
        </button>
        <button type="button" aria-label={`Move ${l.pattern} down`} disabled={index === count - 1} onClick={() => move(1)}>
          ↓
        </button>
        <button type="button" class="edit" onClick={() => setEditing(true)}>
          Edit
        </button>
        <button type="button" class="delete" onClick={() => void attempt(async () => (await api.del(`/realm/filters/${l.id}`), await reload()), "Deleted")}>
          Delete
        </button>
      </td>
    </tr>
  );
}

function Linkifiers() {
  const [pattern, setPattern] = useState("");
  const [template, setTemplate] = useState("");
  // The list lives in realm_linkifiers (/register, realm_linkifiers events); fetched after a change too.
  const load = () => api.get<{ linkifiers: Linkifier[] }>("/realm/linkifiers").then((r) => (realm.value = { ...realm.value, realm_linkifiers: r.linkifiers }));
  useEffect(() => void load().catch(() => undefined), []);
  const list = (realm.value.realm_linkifiers ?? []) as Linkifier[];
  return (
    <Group title="Linkifiers">
      <p class="hint">
        Patterns in messages that become links, e.g. <code>#(?P&lt;id&gt;[0-9]+)</code> with <code>https://github.com/org/repo/issues/{"{id}"}</code>.
      </p>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void (async () => {
            if (await attempt(async () => (await api.once.post("/realm/filters", { pattern, url_template: template }), await load()), "Added")) {
              setPattern("");
              setTemplate("");
            }
          })();
        }}
      >
        <input name="pattern" aria-label="Pattern" placeholder="Pattern" value={pattern} onInput={(e) => setPattern(e.currentTarget.value)} />
        <input name="url_template" aria-label="URL template" placeholder="URL template" value={template} onInput={(e) => setTemplate(e.currentTarget.value)} />
        <button type="submit" disabled={!pattern || !template}>
          Add linkifier
        </button>
      </form>
      <table class="admin-linkifiers">
        <tbody>
          {list.map((l, i) => (
            <LinkifierRow key={l.id} linkifier={l} index={i} count={list.length} reload={load} />
          ))}
        </tbody>
      </table>
    </Group>
  );
}

/** POST /json/realm/emoji/{name} takes the image as multipart form data: fetch directly. */
async function uploadEmoji(name: string, file: File): Promise<void> {
  const form = new FormData();
  form.append("file", file);
  const token = document.querySelector<HTMLMetaElement>('meta[name="parley-csrf-token"]')?.content ?? "";
  const res = await fetch(`/json/realm/emoji/${encodeURIComponent(name)}`, {
    method: "POST",
    body: form,
    credentials: "same-origin",
    headers: { "X-CSRFToken": token },
  });
  const data = (await res.json().catch(() => null)) as Envelope | null;
  if (!res.ok || data?.result !== "success") throw answerError(data, res.status);
}

function Emoji() {
  const [name, setName] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const list = [...realmEmoji.value.values()].filter((e) => !e.deactivated).sort((a, b) => a.name.localeCompare(b.name));
  return (
    <Group title="Custom emoji">
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void (async () => {
            const form = e.currentTarget;
            if (file && (await attempt(() => uploadEmoji(name, file), "Added"))) {
              setName("");
              setFile(null);
              form.reset();
            }
          })();
        }}
      >
        <input name="emoji_name" aria-label="Emoji name" placeholder="Emoji name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <input type="file" name="emoji_file" aria-label="Emoji image" accept="image/*" onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
        <button type="submit" disabled={!name || !file}>
          Add emoji
        </button>
      </form>
      <ul class="admin-emoji">
        {list.map((e) => (
          <li key={e.id} data-emoji-name={e.name}>
            <img src={e.source_url} alt={`:${e.name}:`} width={20} height={20} />
            <span class="name">:{e.name}:</span>
            <button type="button" onClick={() => void attempt(() => api.del(`/realm/emoji/${encodeURIComponent(e.name)}`), "Deleted")}>
              Delete
            </button>
          </li>
        ))}
      </ul>
    </Group>
  );
}

const VIEWS: Record<string, () => preact.JSX.Element> = {
  "organization-profile": Profile,
  "organization-settings": OrganizationSettings,
  "organization-permissions": Permissions,
  "profile-field-settings": ProfileFields,
  "bot-list-admin": () => <Bots admin={true} />,
  users: () => <UsersList active={true} />,
  deactivated: () => <UsersList active={false} />,
  "invites-list-admin": Invites,
  "emoji-settings": Emoji,
  "linkifier-settings": Linkifiers,
};

/** The organization overlay; `section` is the part of the hash after "organization/". */
export function Admin({ section }: { section: string }) {
  const current = VIEWS[section] ? section : "organization-profile";
  const View = VIEWS[current] ?? Profile;
  return (
    <SettingsFrame
      title="Organization settings"
      closeLabel="Close organization settings"
      navLabel="Organization sections"
      sections={ADMIN_SECTIONS}
      hashPrefix="organization"
      links={[["#groups/all", "User groups"]]}
      current={current}
      className="admin"
    >
      {isAdmin() ? <View key={current} /> : <p class="status admin-only">Only organization administrators can change these settings.</p>}
    </SettingsFrame>
  );
}
