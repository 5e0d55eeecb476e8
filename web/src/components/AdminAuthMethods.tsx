import { api } from "../api.js";
import { amOwner } from "../channelRules.js";
import { realm } from "../state.js";
import { attempt, Group } from "./forms.js";

/**
 * Organization settings → Authentication methods (Zulip's settings_org auth methods list): a
 * checkbox per method the server offers (/register's realm_authentication_methods, kept fresh
 * by the realm/update_dict event). Owners change them (PATCH /json/realm authentication_methods);
 * the server refuses turning the last one off, and the checkbox then shows the method on again.
 */
export function AuthenticationMethods() {
  const methods = (realm.value.realm_authentication_methods ?? {}) as Record<string, { enabled: boolean; available: boolean }>;
  const names = Object.keys(methods);
  if (names.length === 0) return null;
  const owner = amOwner();
  return (
    <Group title="Authentication methods">
      {!owner && <p class="status">Only organization owners can change these settings.</p>}
      {names.map((name) => (
        <label class="check" key={name}>
          <input
            type="checkbox"
            name={`authentication_method_${name}`}
            checked={methods[name]?.enabled === true}
            disabled={!owner || methods[name]?.available === false}
            onChange={(e) => {
              const input = e.currentTarget;
              // The whole dict, as Zulip's web app sends it: the server wants one method of the request on.
              const all = Object.fromEntries(names.map((n) => [n, n === name ? input.checked : methods[n]?.enabled === true]));
              void attempt(() => api.patch("/realm", { authentication_methods: all })).then((ok) => {
                if (!ok) input.checked = methods[name]?.enabled === true;
              });
            }}
          />
          {name === "Email" ? "Email and password" : name === "Dev" ? "Development login" : name}
        </label>
      ))}
    </Group>
  );
}
