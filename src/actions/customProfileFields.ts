import * as z from "zod";
import type { CustomProfileField, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../lib/errors.js";
import { userIdsWhoCanAccessUser } from "../lib/access.js";
import { isRenderedFieldType, PROFILE_FIELD_TYPES, ProfileFieldType, renderProfileFieldValue } from "../lib/profileData.js";
import { isAdmin } from "../models/roles.js";
import { customProfileFieldStore } from "../store/customProfileFields.js";
import { userStore } from "../store/users.js";
import { parseJsonColumn } from "../util/jsonColumn.js";
import { customProfileFieldDict } from "../lib/customProfileFieldPayload.js";

/** Zulip's limits and default external accounts (Zulip 10). */
const NAME_MAX_LENGTH = 40;
const HINT_MAX_LENGTH = 80;
const SHORT_TEXT_MAX_LENGTH = 50;
const LONG_TEXT_MAX_LENGTH = 500;
const MAX_DISPLAY_IN_PROFILE_SUMMARY_FIELDS = 2;
const DEFAULT_EXTERNAL_ACCOUNTS: Record<string, { name: string; hint: string }> = {
  twitter: { name: "Twitter username", hint: "" },
  github: { name: "GitHub username", hint: "" },
};

export interface NewProfileFieldInput {
  name: string;
  hint: string;
  field_type: number;
  field_data: Record<string, unknown>;
  display_in_profile_summary: boolean;
  required: boolean;
  editable_by_user: boolean;
}

/** Validates and creates a field; the caller has checked the actor is an administrator. */
export async function checkCreateCustomProfileField(tx: Tx, actor: User, input: NewProfileFieldInput): Promise<number> {
  const name = input.name.trim();
  validateFieldData(input.field_type, input.field_data);
  const defaultAccount = defaultExternalAccount(input.field_type, input.field_data);
  if (!defaultAccount) {
    if (name === "") throw badRequest("Label cannot be blank.");
    if (input.hint.length > HINT_MAX_LENGTH) throw badRequest(`hint is too long (limit: ${HINT_MAX_LENGTH} characters)`);
    if (name.length > NAME_MAX_LENGTH) throw badRequest(`name is too long (limit: ${NAME_MAX_LENGTH} characters)`);
  }
  if (!PROFILE_FIELD_TYPES.includes(input.field_type)) throw badRequest("Invalid field type.");
  if (input.display_in_profile_summary) {
    if (input.field_type === ProfileFieldType.LONG_TEXT || input.field_type === ProfileFieldType.USER) {
      throw badRequest("Field type not supported for display in profile summary.");
    }
    if ((await customProfileFieldStore.countDisplayedInSummary(tx.q, actor.realm_id)) >= MAX_DISPLAY_IN_PROFILE_SUMMARY_FIELDS) {
      throw badRequest(`Only ${MAX_DISPLAY_IN_PROFILE_SUMMARY_FIELDS} custom profile fields can be displayed in the profile summary.`);
    }
  }
  const finalName = defaultAccount ? defaultAccount.name : name;
  if (await customProfileFieldStore.nameExists(tx.q, actor.realm_id, finalName)) {
    throw badRequest("A field with that label already exists.");
  }
  const hasData = input.field_type === ProfileFieldType.SELECT || input.field_type === ProfileFieldType.EXTERNAL_ACCOUNT;
  const field = await customProfileFieldStore.insert(tx.q, {
    realm_id: actor.realm_id,
    name: finalName,
    hint: defaultAccount ? defaultAccount.hint : input.hint,
    field_type: input.field_type,
    field_data: defaultAccount ? JSON.stringify({ subtype: input.field_data.subtype }) : hasData ? JSON.stringify(input.field_data) : "",
    display_in_profile_summary: input.display_in_profile_summary ? 1 : 0,
    required: input.required ? 1 : 0,
    editable_by_user: input.editable_by_user ? 1 : 0,
  });
  await notifyRealmCustomProfileFields(tx, actor.realm_id);
  return field.id;
}

/**
 * Zulip's try_reorder_realm_custom_profile_fields: each field takes its position in `order`,
 * which must name every field (ids of no field are ignored).
 */
export async function checkReorderCustomProfileFields(tx: Tx, realmId: number, order: readonly number[]): Promise<void> {
  const position = new Map(order.map((id, i) => [id, i]));
  const fields = await customProfileFieldStore.listForRealm(tx.q, realmId);
  if (fields.some((f) => !position.has(f.id))) throw badRequest("Invalid order mapping.");
  for (const field of fields) await customProfileFieldStore.setOrder(tx.q, field.id, position.get(field.id)!);
  await notifyRealmCustomProfileFields(tx, realmId);
}

export interface ProfileFieldChanges {
  name?: string;
  hint?: string;
  field_data?: Record<string, unknown>;
  display_in_profile_summary?: boolean;
  required?: boolean;
  editable_by_user?: boolean;
}

async function fieldById(tx: Tx, realmId: number, id: number): Promise<CustomProfileField> {
  const field = await customProfileFieldStore.getById(tx.q, realmId, id);
  if (!field) throw badRequest(`Field id ${id} not found.`);
  return field;
}

/**
 * Zulip's update_realm_custom_profile_field: the label, hint, choices or URL pattern, and the
 * flags of a field; its type stays. The default external accounts keep their label and hint.
 * Values that name a removed choice are deleted. The caller has checked the actor is an administrator.
 */
export async function checkUpdateCustomProfileField(tx: Tx, actor: User, id: number, changes: ProfileFieldChanges): Promise<void> {
  const field = await fieldById(tx, actor.realm_id, id);
  const data =
    changes.field_data ?? (field.field_data ? parseJsonColumn(z.record(z.string(), z.unknown()), field.field_data, "custom_profile_fields.field_data") : {});
  const isDefaultAccount = !!defaultExternalAccount(field.field_type, data);
  const update: Record<string, string | number> = {};
  if (isDefaultAccount && (changes.name !== undefined || changes.hint !== undefined)) throw badRequest("Default custom field cannot be updated.");
  if (changes.name !== undefined) {
    const name = changes.name.trim();
    if (name === "") throw badRequest("Label cannot be blank.");
    if (name.length > NAME_MAX_LENGTH) throw badRequest(`name is too long (limit: ${NAME_MAX_LENGTH} characters)`);
    if (name !== field.name && (await customProfileFieldStore.nameExists(tx.q, actor.realm_id, name))) {
      throw badRequest("A field with that label already exists.");
    }
    update.name = name;
  }
  if (changes.hint !== undefined) {
    if (changes.hint.length > HINT_MAX_LENGTH) throw badRequest(`hint is too long (limit: ${HINT_MAX_LENGTH} characters)`);
    update.hint = changes.hint;
  }
  if (changes.field_data !== undefined) {
    if (field.field_type !== ProfileFieldType.SELECT && field.field_type !== ProfileFieldType.EXTERNAL_ACCOUNT) {
      throw badRequest("Field type does not take field_data.");
    }
    validateFieldData(field.field_type, changes.field_data);
    const account = defaultExternalAccount(field.field_type, changes.field_data);
    if (account) Object.assign(update, { name: account.name, hint: account.hint });
    update.field_data = JSON.stringify(account ? { subtype: changes.field_data.subtype } : changes.field_data);
  }
  if (changes.display_in_profile_summary !== undefined) {
    if (changes.display_in_profile_summary && !field.display_in_profile_summary) {
      if (field.field_type === ProfileFieldType.LONG_TEXT || field.field_type === ProfileFieldType.USER) {
        throw badRequest("Field type not supported for display in profile summary.");
      }
      if ((await customProfileFieldStore.countDisplayedInSummary(tx.q, actor.realm_id)) >= MAX_DISPLAY_IN_PROFILE_SUMMARY_FIELDS) {
        throw badRequest(`Only ${MAX_DISPLAY_IN_PROFILE_SUMMARY_FIELDS} custom profile fields can be displayed in the profile summary.`);
      }
    }
    update.display_in_profile_summary = changes.display_in_profile_summary ? 1 : 0;
  }
  if (changes.required !== undefined) update.required = changes.required ? 1 : 0;
  if (changes.editable_by_user !== undefined) update.editable_by_user = changes.editable_by_user ? 1 : 0;
  if (Object.keys(update).length > 0) await customProfileFieldStore.update(tx.q, field.id, update);
  if (changes.field_data !== undefined && field.field_type === ProfileFieldType.SELECT) {
    await customProfileFieldStore.deleteValuesNotIn(tx.q, field.id, Object.keys(changes.field_data));
  }
  await notifyRealmCustomProfileFields(tx, actor.realm_id);
}

/** Zulip's delete_realm_custom_profile_field: the field and everyone's values of it. */
export async function checkDeleteCustomProfileField(tx: Tx, actor: User, id: number): Promise<void> {
  const field = await fieldById(tx, actor.realm_id, id);
  await customProfileFieldStore.delete(tx.q, field.id);
  await notifyRealmCustomProfileFields(tx, actor.realm_id);
}

async function notifyRealmCustomProfileFields(tx: Tx, realmId: number): Promise<void> {
  const fields = await customProfileFieldStore.listForRealm(tx.q, realmId);
  tx.sendEventOnCommit({ type: "custom_profile_fields", fields: fields.map(customProfileFieldDict) }, await userStore.listActiveIds(tx.q, realmId));
}

function defaultExternalAccount(fieldType: number, data: Record<string, unknown>) {
  if (fieldType !== ProfileFieldType.EXTERNAL_ACCOUNT) return undefined;
  return DEFAULT_EXTERNAL_ACCOUNTS[data.subtype as string];
}

function validateFieldData(fieldType: number, data: Record<string, unknown>): void {
  if (fieldType === ProfileFieldType.SELECT) {
    const entries = Object.entries(data);
    if (entries.length < 1) throw badRequest("Field must have at least one choice.");
    const texts = new Set<string>();
    for (const [key, choice] of entries) {
      if (key.trim() === "") throw badRequest("'value' cannot be blank.");
      const c = checkDictOnly(choice, `field_data["${key}"]`, ["text", "order"], []);
      texts.add(c.text);
    }
    if (texts.size !== entries.length) throw badRequest("Field must not have duplicate choices.");
  } else if (fieldType === ProfileFieldType.EXTERNAL_ACCOUNT) {
    const d = checkDictOnly(data, "field_data", ["subtype"], ["url_pattern"]);
    if (d.subtype in DEFAULT_EXTERNAL_ACCOUNTS) return;
    if (d.subtype !== "custom") throw badRequest("Invalid external account type");
    if (d.url_pattern === undefined) throw badRequest("Custom external account must define URL pattern");
  }
}

/** Zulip's check_dict_only with required non-blank string values (and optional URL patterns). */
function checkDictOnly<R extends string, O extends string>(
  value: unknown,
  varName: string,
  required: readonly R[],
  optional: readonly O[],
): Record<R, string> & Partial<Record<O, string>> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw badRequest(`${varName} is not a dict`);
  const dict = value as Record<string, unknown>;
  for (const key of required) {
    if (!(key in dict)) throw badRequest(`${key} key is missing from ${varName}`);
    const v = dict[key];
    if (typeof v !== "string") throw badRequest(`${varName}["${key}"] is not a string`);
    if (v.trim() === "") throw badRequest(`${varName}["${key}"] cannot be blank.`);
  }
  for (const key of optional) {
    if (key in dict) checkUrlPattern(dict[key], `${varName}["${key}"]`);
  }
  const unexpected = Object.keys(dict).filter((k) => !(required as readonly string[]).includes(k) && !(optional as readonly string[]).includes(k));
  if (unexpected.length > 0) throw badRequest(`Unexpected arguments: ${unexpected.join(", ")}`);
  return dict as Record<R, string> & Partial<Record<O, string>>;
}

function checkUrlPattern(value: unknown, varName: string): void {
  if (typeof value !== "string") throw badRequest(`${varName} is not a string`);
  if (!value.includes("%(username)s")) throw badRequest("URL pattern must contain '%(username)s'.");
  if (value.split("%(username)s").length !== 2) throw badRequest("Malformed URL pattern.");
  if (!isUrl(value.replace("%(username)s", "username"))) throw badRequest(`${varName} is not a URL`);
}

function isUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname.includes(".");
  } catch {
    return false;
  }
}

// ---- values of a user's fields (PATCH /users/{id} profile_data) ----

export interface ProfileDataEntry {
  id: number;
  /** null or empty: remove the value. */
  value: string | number[] | null;
}

export interface CheckedProfileDataEntry {
  field: CustomProfileField;
  /** The stored text, or null to remove. */
  value: string | null;
}

/** Validates every entry before anything is written (Zulip validates after removing some). */
export async function checkProfileData(tx: Tx, actor: User, target: User, entries: ProfileDataEntry[]): Promise<CheckedProfileDataEntry[]> {
  const checked: CheckedProfileDataEntry[] = [];
  for (const entry of entries) {
    const field = await customProfileFieldStore.getById(tx.q, target.realm_id, entry.id);
    if (!field) throw badRequest(`Field id ${entry.id} not found.`);
    if (!isAdmin(actor) && !field.editable_by_user) {
      throw badRequest("You are not allowed to change this field. Contact an administrator to update it.");
    }
    const empty = entry.value === null || entry.value.length === 0;
    checked.push({ field, value: empty ? null : await checkFieldValue(tx, target.realm_id, field, entry.value) });
  }
  return checked;
}

export async function doUpdateProfileData(tx: Tx, user: User, entries: CheckedProfileDataEntry[]): Promise<void> {
  for (const entry of entries) await doSetProfileFieldValue(tx, user, entry.field, entry.value);
}

async function checkFieldValue(tx: Tx, realmId: number, field: CustomProfileField, value: unknown): Promise<string> {
  const name = field.name;
  switch (field.field_type) {
    case ProfileFieldType.SHORT_TEXT:
    case ProfileFieldType.EXTERNAL_ACCOUNT:
    case ProfileFieldType.PRONOUNS:
      return checkCappedString(value, name, SHORT_TEXT_MAX_LENGTH);
    case ProfileFieldType.LONG_TEXT:
      return checkCappedString(value, name, LONG_TEXT_MAX_LENGTH);
    case ProfileFieldType.DATE: {
      const text = checkCappedString(value, name, Infinity);
      if (!isIsoDate(text)) throw badRequest(`${name} is not a date`);
      return text;
    }
    case ProfileFieldType.URL: {
      const text = checkCappedString(value, name, Infinity);
      if (!isUrl(text)) throw badRequest(`${name} is not a URL`);
      return text;
    }
    case ProfileFieldType.SELECT: {
      const text = checkCappedString(value, name, Infinity);
      const choices = parseJsonColumn(z.record(z.string(), z.unknown()), field.field_data || "{}", "custom_profile_fields.field_data");
      if (!Object.hasOwn(choices, text)) throw badRequest(`'${text}' is not a valid choice for '${name}'.`);
      return text;
    }
    case ProfileFieldType.USER:
      return JSON.stringify(await checkUserIds(tx, realmId, value));
    default:
      throw badRequest("Invalid field type.");
  }
}

function checkCappedString(value: unknown, name: string, max: number): string {
  if (typeof value !== "string") throw badRequest(`${name} is not a string`);
  if (value.length > max) throw badRequest(`${name} is too long (limit: ${max} characters)`);
  return value;
}

function isIsoDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}

async function checkUserIds(tx: Tx, realmId: number, value: unknown): Promise<number[]> {
  if (!Array.isArray(value)) throw badRequest("User IDs is not a list");
  for (const [i, id] of value.entries()) {
    if (typeof id !== "number" || !Number.isSafeInteger(id)) throw badRequest(`User IDs[${i}] is not an integer`);
    const user = await userStore.getInRealm(tx.q, realmId, id);
    if (!user) throw badRequest(`Invalid user ID: ${id}`);
    if (!user.is_active) throw badRequest(`User with ID ${id} is deactivated`);
    if (user.is_bot) throw badRequest(`User with ID ${id} is a bot`);
  }
  return value as number[];
}

/** Stores (or removes, for null) one value and tells everyone who can see the user, if it changed. */
async function doSetProfileFieldValue(tx: Tx, user: User, field: CustomProfileField, value: string | null): Promise<void> {
  const current = await customProfileFieldStore.getValue(tx.q, user.id, field.id);
  let rendered: string | null = null;
  if (value === null) {
    if (!current) return;
    await customProfileFieldStore.deleteValue(tx.q, user.id, field.id);
  } else {
    if (current?.value === value) return;
    rendered = isRenderedFieldType(field.field_type) ? await renderProfileFieldValue(tx.q, user.realm_id, value) : null;
    await customProfileFieldStore.upsertValue(tx.q, user.id, field.id, value, rendered);
  }
  const data: Record<string, unknown> = { id: field.id, value };
  if (rendered) data.rendered_value = rendered;
  tx.sendEventOnCommit(
    { type: "realm_user", op: "update", person: { user_id: user.id, custom_profile_field: data } },
    await userIdsWhoCanAccessUser(tx.q, user),
  );
}
