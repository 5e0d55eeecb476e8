import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { wildcardMentionPolicy } from "../events/initialState/realm.js";
import { badRequest, OldSettingValueMismatchError, OrganizationAdministratorRequiredError, OrganizationOwnerRequiredError } from "../lib/errors.js";
import {
  checkGroupSettingValue,
  type GroupSettingChange,
  groupSettingApiValues,
  type GroupSettingValue,
  sameGroupSetting,
  storeGroupSetting,
  systemGroupIds,
} from "../lib/groupSettings.js";
import { realmGroupPermissionId } from "../lib/realmPermissions.js";
import { accessStreamById, AccessSubject } from "../lib/streamAccess.js";
import {
  REALM_GROUP_PERMISSION_NAMES,
  REALM_GROUP_PERMISSIONS,
  type RealmGroupPermissionName,
  type RealmSettingName,
  realmSettings,
  withRealmSettings,
} from "../models/realmSettings.js";
import { isAdmin, isOwner } from "../models/roles.js";
import { type AuthMethodsConfig, realmAuthenticationMethodsForApi, realmMethodsEnabled } from "../lib/authMethods.js";
import { REALM_AUTH_METHODS_KEY, storedRealmAuthMethods } from "../models/realmSettings.js";
import { auditLogStore } from "../store/auditLog.js";
import { realmStore } from "../store/realms.js";
import { settingGroupStore } from "../store/streams.js";
import { userStore } from "../store/users.js";
import { escapeHtml } from "../util/html.js";
import { defined } from "../util/defined.js";

/**
 * PATCH /realm (Zulip's update_realm): administrators change the organization's settings;
 * some need an owner. Everything is checked before anything is written, so a request either
 * applies whole or changes nothing. Each changed setting is announced to every active user as
 * Zulip does: `realm/update` for plain properties, `realm/update_dict` for group settings.
 */

/** Settings only owners may change (Zulip's update_realm). */
const OWNER_ONLY = new Set<string>([
  "invite_required",
  "emails_restricted_to_domains",
  "disallow_disposable_email_addresses",
  "waiting_period_threshold",
  "message_retention_days",
  "create_multiuse_invite_group",
  "can_create_groups",
  "can_invite_users_group",
  "can_manage_all_groups",
  "authentication_methods",
]);

/** The channel-valued settings: a channel id, or -1 for none. */
const REALM_CHANNEL_SETTINGS = [
  "new_stream_announcements_stream_id",
  "signup_announcements_stream_id",
  "zulip_update_announcements_stream_id",
  "moderation_request_channel_id",
] as const;

export interface RealmUpdateRequest {
  name?: string;
  description?: string;
  message_retention_days?: unknown;
  /** Plain settings (booleans, numbers, strings), already type-checked by the route. */
  settings: Partial<Record<RealmSettingName, unknown>>;
  groupSettings: Partial<Record<RealmGroupPermissionName, GroupSettingChange>>;
  /** Sign-in methods to turn on or off by Zulip's name, and the server's configuration that says which exist. */
  authentication_methods?: { value: Record<string, boolean>; config: AuthMethodsConfig };
}

/** "unlimited" means no limit (null); otherwise a positive number of seconds. */
export function parseTimeLimit(name: string, value: unknown): number | null {
  if (value === "unlimited") return null;
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return value;
  throw badRequest(`Bad value for '${name}': ${typeof value === "string" ? value : JSON.stringify(value)}`);
}

/** Zulip's parse_message_retention_days with Realm.MESSAGE_RETENTION_SPECIAL_VALUES_MAP. */
function parseRealmRetentionDays(value: unknown): number {
  if (value === "unlimited") return -1;
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return value;
  throw badRequest(`Bad value for 'message_retention_days': ${typeof value === "string" ? value : JSON.stringify(value)}`);
}

/** Zulip's access_user_group_for_setting with a realm setting's GroupPermissionSetting. */
async function checkRealmGroupSetting(
  tx: Tx,
  realm: Realm,
  name: RealmGroupPermissionName,
  raw: GroupSettingValue,
  nobody: number,
  systemGroups: Map<string, number>,
): Promise<GroupSettingValue> {
  const config = REALM_GROUP_PERMISSIONS[name];
  const value = await checkGroupSettingValue(
    tx.q,
    realm.id,
    name,
    { allowEveryone: config.allow_everyone_group, defaultGroup: config.default_group_name },
    raw,
    nobody,
  );
  if (typeof value !== "number") {
    if (config.require_system_group) throw badRequest(`'${name}' must be a system user group.`);
    return value;
  }
  const systemName = [...systemGroups].find(([, id]) => id === value)?.[0];
  if (config.require_system_group && systemName === undefined) throw badRequest(`'${name}' must be a system user group.`);
  const refused =
    (systemName === "role:nobody" && !config.allow_nobody_group) ||
    (systemName !== undefined && config.allowed_system_groups.length > 0 && !(config.allowed_system_groups as string[]).includes(systemName));
  if (refused) throw badRequest(`'${name}' setting cannot be set to '${systemName}' group.`);
  return value;
}

export async function checkUpdateRealm(tx: Tx, actor: User, realmAtAuth: Realm, req: RealmUpdateRequest): Promise<Record<string, unknown>> {
  if (!isAdmin(actor)) throw new OrganizationAdministratorRequiredError();
  const realm = (await realmStore.getById(tx.q, realmAtAuth.id))!;
  const requested = [
    ...Object.keys(req.settings),
    ...Object.keys(req.groupSettings),
    ...(req.message_retention_days !== undefined ? ["message_retention_days"] : []),
    ...(req.authentication_methods !== undefined ? ["authentication_methods"] : []),
  ];
  if (!isOwner(actor) && requested.some((name) => OWNER_ONLY.has(name))) throw new OrganizationOwnerRequiredError();

  const current = realmSettings(realm);
  const data: Record<string, unknown> = {};
  const settingChanges: Record<string, unknown> = {};

  // Plain settings: only values that differ are written and announced.
  for (const [name, value] of Object.entries(req.settings) as Array<[RealmSettingName, unknown]>) {
    if ((REALM_CHANNEL_SETTINGS as readonly string[]).includes(name) && typeof value === "number" && value >= 0) {
      await accessStreamById(tx.q, new AccessSubject(actor), value, "metadata", { requireActive: true });
    }
    if (current[name] !== value) settingChanges[name] = value;
  }
  const columns: { name?: string; description?: string; message_retention_days?: number } = {};
  if (req.name !== undefined && req.name !== realm.name) columns.name = req.name;
  if (req.description !== undefined && req.description !== realm.description) columns.description = req.description;
  if (req.message_retention_days !== undefined) {
    const days = parseRealmRetentionDays(req.message_retention_days);
    if (days !== (realm.message_retention_days ?? -1)) columns.message_retention_days = days;
  }

  const authMethods = req.authentication_methods && checkAuthenticationMethods(realm, req.authentication_methods.value, req.authentication_methods.config);

  // Group settings: checked first, all of them, then stored.
  const groupChanges: Array<[RealmGroupPermissionName, GroupSettingValue]> = [];
  const names = REALM_GROUP_PERMISSION_NAMES.filter((n) => req.groupSettings[n] !== undefined);
  const systemGroups = await systemGroupIds(tx.q, realm.id);
  const nobody = systemGroups.get("role:nobody")!;
  const currentIds = await Promise.all(names.map((n) => realmGroupPermissionId(tx.q, realm, n)));
  const currentValues = await groupSettingApiValues(tx.q, realm.id, currentIds);
  const currentIdOf = (i: number) => defined(currentIds[i], `the current group of ${names[i]}`);
  for (const [i, name] of names.entries()) {
    const change = req.groupSettings[name]!;
    const currentValue = currentValues.get(currentIdOf(i)) ?? currentIdOf(i);
    if (change.old !== undefined) {
      const expected = await checkRealmGroupSetting(tx, realm, name, change.old, nobody, systemGroups);
      if (!sameGroupSetting(expected, currentValue)) throw new OldSettingValueMismatchError();
    }
    const value = await checkRealmGroupSetting(tx, realm, name, change.new, nobody, systemGroups);
    if (!sameGroupSetting(value, currentValue)) groupChanges.push([name, value]);
  }

  // Write.
  const groupIds: Record<string, number> = {};
  for (const [i, name] of names.entries()) {
    const change = groupChanges.find(([n]) => n === name);
    if (!change) continue;
    const oldValue = currentValues.get(currentIdOf(i)) ?? currentIdOf(i);
    const oldAnonymous = typeof oldValue !== "number";
    groupIds[name] = await storeGroupSetting(tx.q, realm.id, change[1], oldAnonymous && typeof change[1] !== "number" ? currentIdOf(i) : undefined);
    if (oldAnonymous && typeof change[1] === "number") await settingGroupStore.deleteAnonymous(tx.q, currentIdOf(i));
  }
  const settings = withRealmSettings(realm, { ...settingChanges, ...groupIds, ...(authMethods ? { [REALM_AUTH_METHODS_KEY]: authMethods.stored } : {}) });
  if (settings !== realm.settings || Object.keys(columns).length > 0) await realmStore.update(tx.q, realm.id, { ...columns, settings });

  const audience = await userStore.listActiveIds(tx.q, realm.id);
  // Visitors' queues end when spectator access is turned off (events/visitorQueues.ts).
  const announce = (property: string, value: unknown) =>
    tx.sendEventOnCommit(
      { type: "realm", op: "update", property, value, ...(property === "enable_spectator_access" ? { spectators: { realm_id: realm.id } } : {}) },
      audience,
    );
  for (const [name, value] of Object.entries(columns)) {
    announce(name, name === "description" ? renderRealmDescription(value as string) : value);
    data[name] = typeof value === "string" ? "updated" : value;
  }
  for (const [name, value] of Object.entries(settingChanges)) {
    announce(name, value);
    data[name] = typeof value === "string" ? "updated" : value;
  }
  for (const [name, value] of groupChanges) {
    tx.sendEventOnCommit({ type: "realm", op: "update_dict", property: "default", data: { [name]: value } }, audience);
    data[name] = value;
    if (name === "can_mention_many_users_group") {
      const before = wildcardMentionPolicy(currentValues.get(currentIdOf(names.indexOf(name))) ?? currentIdOf(names.indexOf(name)), systemGroups);
      const after = wildcardMentionPolicy(value, systemGroups);
      if (before !== after) announce("wildcard_mention_policy", after);
    }
  }
  if (authMethods) {
    const methods = realmAuthenticationMethodsForApi(authMethods.enabled);
    tx.sendEventOnCommit({ type: "realm", op: "update_dict", property: "default", data: { authentication_methods: methods } }, audience);
    data.authentication_methods = req.authentication_methods!.value;
  }
  const changed = [
    ...Object.keys(columns),
    ...Object.keys(settingChanges),
    ...groupChanges.map(([n]) => n),
    ...(authMethods ? ["authentication_methods"] : []),
  ];
  if (changed.length > 0) {
    await auditLogStore.insert(tx.q, {
      realm_id: realm.id,
      event_type: "realm_property_changed",
      acting_user_id: actor.id,
      extra_data: { properties: changed },
    });
  }
  return data;
}

/**
 * Zulip's checks of PATCH /realm authentication_methods (validate_authentication_methods_dict_from_api
 * and update_realm's): only methods the server offers, at least one of the request's turned on.
 * Undefined when the request changes nothing (Zulip compares the request with the whole current
 * dict); else what realms.settings stores and the methods' new state.
 */
function checkAuthenticationMethods(
  realm: Realm,
  requested: Record<string, boolean>,
  config: AuthMethodsConfig,
): { stored: Record<string, boolean>; enabled: Record<string, boolean> } | undefined {
  const current = realmMethodsEnabled(config, realm);
  for (const name of Object.keys(requested)) {
    if (!(name in current)) {
      const valid = Object.keys(current)
        .sort()
        .map((m) => `'${m}'`)
        .join(", ");
      throw badRequest(`Invalid authentication method: ${name}. Valid methods are: [${valid}]`);
    }
  }
  if (!Object.values(requested).includes(true)) throw badRequest("At least one authentication method must be enabled.");
  const same = Object.keys(current).length === Object.keys(requested).length && Object.entries(requested).every(([m, on]) => current[m] === on);
  if (same) return undefined;
  const stored = { ...storedRealmAuthMethods(realm), ...requested };
  return { stored, enabled: { ...current, ...requested } };
}

/** The organization description as POST /register shows it. */
function renderRealmDescription(description: string): string {
  return description === "" ? "" : `<p>${escapeHtml(description)}</p>`;
}
