import type { Realm } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { userGroupStore } from "../store/userGroups.js";
import type { AccessSubject } from "./streamAccess.js";

/** A realm setting stored in realms.settings, or Zulip's default `fallback` when the realm has none. */
export function realmSetting<T>(realm: Realm, name: string, fallback: T): T {
  const settings = JSON.parse(realm.settings || "{}") as Record<string, unknown>;
  return name in settings ? (settings[name] as T) : fallback;
}

/** Whether the user holds a realm group permission (stored group id, or Zulip's default system group). */
export async function inRealmGroup(q: Executor, subject: AccessSubject, realm: Realm, name: string, defaultGroup: string): Promise<boolean> {
  const stored = realmSetting<unknown>(realm, name, null);
  const groupId = typeof stored === "number" ? stored : (await userGroupStore.getSystemGroup(q, realm.id, defaultGroup)).id;
  return (await subject.groupIds(q)).has(groupId);
}
