import { transaction } from "../appContext.js";
import { doCreateUser } from "../actions/createUser.js";
import { doCreateRealm } from "../actions/realms.js";
import { doSetUpNewRealm } from "../actions/onboarding.js";
import { generatePassword, hashPassword } from "../lib/passwords.js";
import { Role } from "../models/roles.js";
import { realmStore } from "../store/realms.js";
import { type Command, CliError, checkEmail, checkFullName, checkPassword, print, requiredOption, stringOption, usageError } from "./command.js";
import { withContext } from "./context.js";

/** Zulip's subdomain rules; "" is the root domain (one organization per server). */
function checkStringId(value: string): string {
  if (value === "") return value;
  if (value.length < 3 || value.length > 40) throw usageError(`invalid --string-id "${value}": use 3 to 40 characters`);
  if (!/^[a-z0-9-]+$/.test(value)) throw usageError(`invalid --string-id "${value}": use lowercase letters, digits and '-' only`);
  if (value.startsWith("-") || value.endsWith("-")) throw usageError(`invalid --string-id "${value}": it cannot start or end with '-'`);
  return value;
}

function checkRealmName(value: string): string {
  const name = value.trim();
  if (name.length === 0 || name.length > 40) throw usageError("invalid --name: an organization name has 1 to 40 characters");
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
      const { realm, owner } = await transaction(ctx, async (tx) => {
        if (await realmStore.getByStringId(tx.q, stringId)) throw new CliError(`an organization with string id "${stringId}" already exists`);
        const realm = await doCreateRealm(tx, { string_id: stringId, name });
        const owner = await doCreateUser(tx, realm, {
          email,
          full_name: fullName,
          password_hash: passwordHash,
          role: Role.OWNER,
          can_create_users: true,
          can_change_user_emails: true,
        });
        await doSetUpNewRealm(tx, realm, owner);
        return { realm, owner };
      });
      print(`Created the organization "${realm.name}" (string id "${realm.string_id}", id ${realm.id}) and its owner:`);
      print(`  email:    ${owner.email}`);
      if (givenPassword === undefined) print(`  password: ${password}`);
      print(`  API key:  ${owner.api_key}`);
      return 0;
    });
  },
};
