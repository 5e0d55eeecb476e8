import type { CreateGroupResponse } from "../../../src/contract/responses.js";
import { useState } from "preact/hooks";
import { api, myUserId } from "../api.js";
import { encodeHashComponent } from "../hash.js";
import { type UserGroup, userGroups, userName, users } from "../state.js";
import { attempt, Group, SettingsFrame } from "./forms.js";
import { GroupSettingPicker, groupLabel, namedGroups, type GroupSettingValue } from "./GroupSettingPicker.js";
import "./admin.css";

/**
 * User groups, at Zulip's hashes: #groups/your, #groups/all, #groups/new and
 * #groups/<id>/<name>/general|members|permissions. A chunk of its own. Groups come from
 * /register's realm_user_groups, kept by user_group events; the server decides who may change
 * what (can_manage_group, can_join_group, ... and the organization's can_manage_all_groups) and
 * its refusals show next to the title.
 */
const SECTIONS: Array<[string, string]> = [
  ["your", "Your groups"],
  ["all", "All groups"],
  ["new", "Create user group"],
];

const GROUP_PERMISSIONS: Array<[string, string]> = [
  ["can_manage_group", "Who can administer this group"],
  ["can_add_members_group", "Who can add members to this group"],
  ["can_remove_members_group", "Who can remove members from this group"],
  ["can_join_group", "Who can join this group"],
  ["can_leave_group", "Who can leave this group"],
  ["can_mention_group", "Who can mention this group"],
];

const groupHash = (g: { id: number; name?: string }, tab = "general") => `#groups/${g.id}/${encodeHashComponent(g.name ?? "")}/${tab}`;

function customGroups(): UserGroup[] {
  return [...userGroups.value.values()].filter((g) => !g.is_system_group && !g.deactivated).sort((a, b) => (a.name ?? "").localeCompare(b.name ?? ""));
}

function isMember(g: UserGroup): boolean {
  return g.members.includes(myUserId);
}

const changeMembers = (id: number, params: Record<string, number[]>, done: string) => attempt(() => api.post(`/user_groups/${id}/members`, params), done);

function JoinLeave({ group }: { group: UserGroup }) {
  return isMember(group) ? (
    <button type="button" class="leave" onClick={() => void changeMembers(group.id, { delete: [myUserId] }, "Left")}>
      Leave
    </button>
  ) : (
    <button type="button" class="join" onClick={() => void changeMembers(group.id, { add: [myUserId] }, "Joined")}>
      Join
    </button>
  );
}

function GroupList({ mine }: { mine: boolean }) {
  const list = customGroups().filter((g) => !mine || isMember(g));
  return (
    <>
      {list.length === 0 && <p class="hint">{mine ? "You are not a member of any user group." : "There are no user groups yet."}</p>}
      <ul class="group-list">
        {list.map((g) => (
          <li key={g.id} data-group-id={g.id}>
            <a href={groupHash(g)} class="group-name">
              @{g.name}
            </a>
            <span class="hint description">{g.description}</span>
            <span class="hint member-count">
              {g.members.length} {g.members.length === 1 ? "member" : "members"}
            </span>
            <JoinLeave group={g} />
          </li>
        ))}
      </ul>
    </>
  );
}

/** People (and groups, when `groups` is given) chosen as pills, with a select to add more. */
function PeoplePicker({
  members,
  onChange,
  subgroups,
  onSubgroups,
  exclude,
}: {
  members: number[];
  onChange: (ids: number[]) => void;
  subgroups?: number[];
  onSubgroups?: (ids: number[]) => void;
  exclude?: number;
}) {
  const people = [...users.value.values()]
    .filter((u) => !u.is_bot && u.is_active !== false && !members.includes(u.user_id))
    .sort((a, b) => a.full_name.localeCompare(b.full_name));
  const groups = onSubgroups ? namedGroups().filter((g) => !g.system && g.id !== exclude && !(subgroups ?? []).includes(g.id)) : [];
  return (
    <div class="people-picker">
      <ul class="pills">
        {(subgroups ?? []).map((id) => (
          <li key={`g${id}`} class="pill group">
            @{groupLabel(id)}
            <button type="button" aria-label={`Remove ${groupLabel(id)}`} onClick={() => onSubgroups!(subgroups!.filter((x) => x !== id))}>
              ×
            </button>
          </li>
        ))}
        {members.map((id) => (
          <li key={id} class="pill">
            {userName(id)}
            <button type="button" aria-label={`Remove ${userName(id)}`} onClick={() => onChange(members.filter((x) => x !== id))}>
              ×
            </button>
          </li>
        ))}
      </ul>
      <select
        name="add_member"
        aria-label="Add a member"
        value=""
        onChange={(e) => {
          const [kind, id] = e.currentTarget.value.split(":");
          if (kind === "u") onChange([...members, Number(id)]);
          if (kind === "g") onSubgroups?.([...(subgroups ?? []), Number(id)]);
        }}
      >
        <option value="">Add a person{onSubgroups ? " or group" : ""}…</option>
        {groups.length > 0 && (
          <optgroup label="Groups">
            {groups.map((g) => (
              <option key={g.id} value={`g:${g.id}`}>
                @{g.label}
              </option>
            ))}
          </optgroup>
        )}
        <optgroup label="People">
          {people.map((u) => (
            <option key={u.user_id} value={`u:${u.user_id}`}>
              {u.full_name}
            </option>
          ))}
        </optgroup>
      </select>
    </div>
  );
}

function NewGroup() {
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [members, setMembers] = useState<number[]>([myUserId]);
  return (
    <Group title="New user group">
      <form
        class="new-group"
        onSubmit={(e) => {
          e.preventDefault();
          void (async () => {
            let id = 0;
            const ok = await attempt(async () => {
              id = (await api.once.post<CreateGroupResponse>("/user_groups/create", { name: name.trim(), description, members })).group_id;
            }, "Created");
            if (ok) location.hash = groupHash({ id, name: name.trim() });
          })();
        }}
      >
        <label class="field">
          <span>Name</span>
          <input name="group_name" value={name} maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label class="field wide">
          <span>Description</span>
          <textarea name="group_description" rows={2} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        </label>
        <div class="field wide">
          <span>Members</span>
          <PeoplePicker members={members} onChange={setMembers} />
        </div>
        <button type="submit" disabled={!name.trim()}>
          Create
        </button>
      </form>
    </Group>
  );
}

function General({ group }: { group: UserGroup }) {
  const [name, setName] = useState(group.name ?? "");
  const [description, setDescription] = useState(group.description ?? "");
  return (
    <>
      <Group title="Name and description">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const changes: Record<string, string> = {};
            if (name.trim() !== group.name) changes.name = name.trim();
            if (description !== group.description) changes.description = description;
            void attempt(() => api.patch(`/user_groups/${group.id}`, changes));
          }}
        >
          <label class="field">
            <span>Name</span>
            <input name="group_name" value={name} maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <label class="field wide">
            <span>Description</span>
            <textarea name="group_description" rows={2} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
          </label>
          <button type="submit" disabled={!name.trim() || (name.trim() === group.name && description === group.description)}>
            Save changes
          </button>
        </form>
      </Group>
      <Group title="Membership">
        <p class="hint">{isMember(group) ? "You are a member of this group." : "You are not a member of this group."}</p>
        <div class="row">
          <JoinLeave group={group} />
          <button
            type="button"
            class="deactivate"
            onClick={() =>
              confirm(`Deactivate @${group.name}?`) &&
              void attempt(() => api.post(`/user_groups/${group.id}/deactivate`), "Deactivated").then((ok) => ok && (location.hash = "#groups/all"))
            }
          >
            Deactivate group
          </button>
        </div>
      </Group>
    </>
  );
}

function Members({ group }: { group: UserGroup }) {
  const [adding, setAdding] = useState<number[]>([]);
  const [addingGroups, setAddingGroups] = useState<number[]>([]);
  const members = [...group.members].sort((a, b) => userName(a).localeCompare(userName(b)));
  return (
    <>
      <Group title="Add members">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void (async () => {
              const ok = await attempt(async () => {
                if (adding.length) await api.post(`/user_groups/${group.id}/members`, { add: adding });
                if (addingGroups.length) await api.post(`/user_groups/${group.id}/subgroups`, { add: addingGroups });
              }, "Added");
              if (ok) {
                setAdding([]);
                setAddingGroups([]);
              }
            })();
          }}
        >
          <PeoplePicker
            members={adding}
            onChange={(ids) => setAdding(ids.filter((id) => !group.members.includes(id)))}
            subgroups={addingGroups}
            onSubgroups={(ids) => setAddingGroups(ids.filter((id) => !group.direct_subgroup_ids.includes(id)))}
            exclude={group.id}
          />
          <button type="submit" disabled={!adding.length && !addingGroups.length}>
            Add
          </button>
        </form>
      </Group>
      <Group title={`Members (${members.length})`}>
        <ul class="member-list">
          {group.direct_subgroup_ids.map((id) => (
            <li key={`g${id}`} data-subgroup-id={id}>
              <span>@{groupLabel(id)}</span>
              <button type="button" onClick={() => void attempt(() => api.post(`/user_groups/${group.id}/subgroups`, { delete: [id] }), "Removed")}>
                Remove
              </button>
            </li>
          ))}
          {members.map((id) => (
            <li key={id} data-user-id={id}>
              <span>{userName(id)}</span>
              <button type="button" onClick={() => void changeMembers(group.id, { delete: [id] }, "Removed")}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      </Group>
    </>
  );
}

function Permissions({ group }: { group: UserGroup }) {
  return (
    <Group title="Group permissions">
      {GROUP_PERMISSIONS.filter(([name]) => group[name] !== undefined).map(([name, label]) => (
        <GroupSettingPicker
          key={name}
          name={name}
          label={label}
          value={group[name] as GroupSettingValue}
          save={(change) => attempt(() => api.patch(`/user_groups/${group.id}`, { [name]: change }))}
        />
      ))}
    </Group>
  );
}

const TABS: Array<[string, string]> = [
  ["general", "General"],
  ["members", "Members"],
  ["permissions", "Permissions"],
];

function GroupPage({ group, tab }: { group: UserGroup; tab: string }) {
  const current = TABS.some(([id]) => id === tab) ? tab : "general";
  return (
    <div class="group-page" data-group-id={group.id}>
      {group.description && <p class="hint">{group.description}</p>}
      <div class="tabs" role="navigation" aria-label="Group sections">
        {TABS.map(([id, text]) => (
          <a key={id} href={groupHash(group, id)} class={id === current ? "current" : ""} aria-current={id === current ? "page" : undefined}>
            {text}
          </a>
        ))}
      </div>
      {current === "general" && <General key={group.id} group={group} />}
      {current === "members" && <Members key={group.id} group={group} />}
      {current === "permissions" && <Permissions key={group.id} group={group} />}
    </div>
  );
}

/** The groups overlay; `path` is the hash after "groups/". */
export function Groups({ path = [] }: { section: string; path?: string[] }) {
  const [first = "your", , tab = "general"] = path;
  const id = /^\d+$/.test(first) ? Number(first) : null;
  const group = id === null ? undefined : userGroups.value.get(id);
  const current = id !== null ? "all" : SECTIONS.some(([s]) => s === first) ? first : "your";
  const heading = id === null ? undefined : group && !group.is_system_group ? `@${group.name}` : "Group not found";
  return (
    <SettingsFrame
      title="User groups"
      closeLabel="Close user groups"
      navLabel="User group sections"
      sections={SECTIONS}
      hashPrefix="groups"
      current={id === null ? current : `group-${id}`}
      heading={heading}
      className="groups"
    >
      {id !== null ? (
        group && !group.is_system_group ? (
          <GroupPage group={group} tab={tab} />
        ) : (
          <p class="status">This group does not exist or was deactivated.</p>
        )
      ) : current === "new" ? (
        <NewGroup />
      ) : (
        <GroupList mine={current === "your"} />
      )}
    </SettingsFrame>
  );
}
