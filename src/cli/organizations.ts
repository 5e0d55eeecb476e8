import { transaction } from "../appContext.js";
import { doCreateOrganization, OrganizationExistsError } from "../actions/organizations.js";
import { generatePassword, hashPassword } from "../lib/passwords.js";
import { REALM_NAME_MAX_LENGTH, SUBDOMAIN_MAX_LENGTH, SUBDOMAIN_MIN_LENGTH, subdomainProblem } from "../models/organizations.js";
import { type Command, CliError, checkEmail, checkFullName, checkPassword, print, requiredOption, stringOption, usageError } from "./command.js";
import { withContext } from "./context.js";

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
