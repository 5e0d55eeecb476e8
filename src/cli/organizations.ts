import { transaction } from "../appContext.js";
import type { AppContext } from "../appContext.js";
import { doCreateOrganization, OrganizationExistsError } from "../actions/organizations.js";
import { doDeactivateRealm, doReactivateRealm } from "../actions/realms.js";
import { doSetRealmLimits, type RealmLimits, realmUsage } from "../actions/realmLimits.js";
import type { Realm } from "../db/schema.js";
import { generatePassword, hashPassword } from "../lib/passwords.js";
import { REALM_NAME_MAX_LENGTH, SUBDOMAIN_MAX_LENGTH, SUBDOMAIN_MIN_LENGTH, subdomainProblem } from "../models/organizations.js";
import {
  type Command,
  CliError,
  checkEmail,
  checkFullName,
  checkPassword,
  type ParsedArgs,
  print,
  requiredOption,
  stringOption,
  usageError,
} from "./command.js";
import { INTERNAL_REALM, resolveRealm, withContext } from "./context.js";

/** The subdomain rules of models/subdomains.ts; "" is the root domain (one organization per server). */
function checkStringId(value: string): string {
  if (value === "") return value;
  const problem = subdomainProblem(value);
  if (problem === undefined) return value;
  const reason = {
    length: `use ${SUBDOMAIN_MIN_LENGTH} to ${SUBDOMAIN_MAX_LENGTH} characters`,
    characters: "use lowercase letters, digits and '-' only",
    dash: "it cannot start or end with '-'",
  }[problem];
  throw usageError(`invalid --string-id "${value}": ${reason}`);
}

function checkRealmName(value: string): string {
  const name = value.trim();
  if (name.length === 0 || name.length > REALM_NAME_MAX_LENGTH)
    throw usageError(`invalid --name: an organization name has 1 to ${REALM_NAME_MAX_LENGTH} characters`);
  return name;
}

/** `parley create-organization`: an organization and its owner, whose credentials are printed once. */
export const createOrganizationCommand: Command = {
  name: "create-organization",
  summary: "Create an organization and its owner, and print the owner's credentials.",
  options: {
    "string-id": { type: "string", value: "ID", help: 'the organization\'s subdomain ("" for the root domain)', required: true },
    name: { type: "string", value: "NAME", help: "the organization's name", required: true },
    "owner-email": { type: "string", value: "EMAIL", help: "the owner's email address", required: true },
    "owner-name": { type: "string", value: "NAME", help: 'the owner\'s full name (default "Owner")' },
    "owner-password": { type: "string", value: "PASSWORD", help: "the owner's password (default: generated and printed)" },
  },
  async run(config, args) {
    const stringId = checkStringId(requiredOption(args, "string-id"));
    const name = checkRealmName(requiredOption(args, "name"));
    const email = checkEmail(requiredOption(args, "owner-email"), "owner-email");
    const fullName = checkFullName(stringOption(args, "owner-name") ?? "Owner", "owner-name");
    const givenPassword = stringOption(args, "owner-password");
    const password = givenPassword === undefined ? generatePassword() : checkPassword(givenPassword, "owner-password");

    return withContext(config, async (ctx) => {
      const passwordHash = await hashPassword(password, config.fastPasswordHashing);
      const { realm, owner } = await transaction(ctx, (tx) =>
        doCreateOrganization(tx, { string_id: stringId, name, owner: { email, full_name: fullName, password_hash: passwordHash } }),
      ).catch((error: unknown) => {
        throw error instanceof OrganizationExistsError ? new CliError(error.message) : error;
      });
      print(`Created the organization "${realm.name}" (string id "${realm.string_id}", id ${realm.id}) and its owner:`);
      print(`  email:    ${owner.email}`);
      if (givenPassword === undefined) print(`  password: ${password}`);
      print(`  API key:  ${owner.api_key}`);
      return 0;
    });
  },
};

const realmOption = { type: "string", value: "STRING_ID", help: 'the organization\'s string id ("" for the root domain)', required: true } as const;

/** The organization named by --realm, never the system bots' one. */
async function operatedRealm(ctx: AppContext, stringId: string): Promise<Realm> {
  if (stringId === INTERNAL_REALM) throw new CliError(`"${INTERNAL_REALM}" is the system bots' organization: it cannot be deactivated or limited`);
  return resolveRealm(ctx, stringId);
}

/** `parley deactivate-organization`: Zulip's do_deactivate_realm. */
export const deactivateOrganizationCommand: Command = {
  name: "deactivate-organization",
  summary: "Deactivate an organization: its users are signed out and can no longer sign in or use the API.",
  options: {
    realm: realmOption,
    reason: { type: "string", value: "TEXT", help: "why (recorded in the organization's audit log)" },
  },
  async run(config, args) {
    const stringId = requiredOption(args, "realm");
    const reason = stringOption(args, "reason");
    return withContext(config, async (ctx) => {
      const realm = await operatedRealm(ctx, stringId);
      const changed = await transaction(ctx, (tx) => doDeactivateRealm(tx, realm, null, reason));
      print(
        changed
          ? `Deactivated the organization "${realm.name}" (id ${realm.id}).`
          : `The organization "${realm.name}" (id ${realm.id}) was already deactivated.`,
      );
      return 0;
    });
  },
};

/** `parley reactivate-organization`: Zulip's do_reactivate_realm. */
export const reactivateOrganizationCommand: Command = {
  name: "reactivate-organization",
  summary: "Reactivate a deactivated organization (its users sign in again).",
  options: { realm: realmOption },
  async run(config, args) {
    const stringId = requiredOption(args, "realm");
    return withContext(config, async (ctx) => {
      const realm = await operatedRealm(ctx, stringId);
      const changed = await transaction(ctx, (tx) => doReactivateRealm(tx, realm, null));
      print(
        changed ? `Reactivated the organization "${realm.name}" (id ${realm.id}).` : `The organization "${realm.name}" (id ${realm.id}) is not deactivated.`,
      );
      return 0;
    });
  },
};

/** "none" (unlimited) or a whole number from `min`. */
function limitOption(args: ParsedArgs, name: string, min: number): number | null | undefined {
  const value = stringOption(args, name);
  if (value === undefined) return undefined;
  if (value === "none") return null;
  if (!/^\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
    throw usageError(`invalid --${name} "${value}": use a whole number from ${min}, or "none" for no limit`);
  }
  return Number(value);
}

const MIB = 1024 * 1024;

/** `parley set-organization-limits`: the user limit and upload quota (actions/realmLimits.ts). */
export const setOrganizationLimitsCommand: Command = {
  name: "set-organization-limits",
  summary: "Set or show an organization's user limit and upload quota, and its current usage.",
  options: {
    realm: realmOption,
    "max-users": { type: "string", value: "N|none", help: "most active human users (bots do not count)" },
    "upload-quota-mib": { type: "string", value: "N|none", help: "most MiB of uploaded files in total" },
  },
  async run(config, args) {
    const stringId = requiredOption(args, "realm");
    const changes: Partial<RealmLimits> = {};
    const maxUsers = limitOption(args, "max-users", 1);
    const quota = limitOption(args, "upload-quota-mib", 0);
    if (maxUsers !== undefined) changes.max_users = maxUsers;
    if (quota !== undefined) changes.upload_quota_mib = quota;
    return withContext(config, async (ctx) => {
      const realm = await operatedRealm(ctx, stringId);
      const limits = await transaction(ctx, (tx) => doSetRealmLimits(tx, realm, changes, null));
      const usage = await realmUsage(ctx.db.kysely, realm.id);
      const show = (value: number | null, unit: string) => (value === null ? "unlimited" : `${value}${unit}`);
      print(`Limits of the organization "${realm.name}" (id ${realm.id}):`);
      print(`  max users:     ${show(limits.max_users, "")} (now ${usage.users} active)`);
      print(`  upload quota:  ${show(limits.upload_quota_mib, " MiB")} (now ${(usage.uploadBytes / MIB).toFixed(2)} MiB used)`);
      return 0;
    });
  },
};
