import { transaction } from "../appContext.js";
import { doRegenerateApiKey } from "../actions/apiKeys.js";
import { doCreateUser } from "../actions/createUser.js";
import { doChangeUserRole, isLastOwner } from "../actions/users.js";
import { ApiError } from "../lib/errors.js";
import { generatePassword, hashPassword } from "../lib/passwords.js";
import { auditLogStore } from "../store/auditLog.js";
import { userStore } from "../store/users.js";
import {
  type Command,
  CliError,
  ROLE_NAMES,
  checkEmail,
  checkFullName,
  checkPassword,
  parseRole,
  print,
  requiredOption,
  roleName,
  stringOption,
} from "./command.js";
import { checkEmailFree, resolveRealm, resolveUser, withContext } from "./context.js";

const realmOption = {
  type: "string",
  value: "STRING_ID",
  help: "the organization (default: the only one)",
} as const;
const emailOption = { type: "string", value: "EMAIL", help: "the user's email address", required: true } as const;
const roleList = Object.keys(ROLE_NAMES).join("|");

export const createUserCommand: Command = {
  name: "create-user",
  summary: "Create a user and print their credentials.",
  options: {
    realm: realmOption,
    email: emailOption,
    "full-name": { type: "string", value: "NAME", help: "the user's full name", required: true },
    password: { type: "string", value: "PASSWORD", help: "the user's password (default: generated and printed)" },
    role: { type: "string", value: roleList, help: "the user's role (default member)" },
  },
  async run(config, args) {
    const email = checkEmail(requiredOption(args, "email"), "email");
    const fullName = checkFullName(requiredOption(args, "full-name"), "full-name");
    const role = parseRole(stringOption(args, "role") ?? "member");
    const givenPassword = stringOption(args, "password");
    const password = givenPassword === undefined ? generatePassword() : checkPassword(givenPassword, "password");
    return withContext(config, async (ctx) => {
      const realm = await resolveRealm(ctx, stringOption(args, "realm"));
      await checkEmailFree(ctx, realm, email);
      const passwordHash = await hashPassword(password, config.fastPasswordHashing);
      const user = await transaction(ctx, (tx) => doCreateUser(tx, realm, { email, full_name: fullName, password_hash: passwordHash, role })).catch(
        (error: unknown) => {
          // The organization's user limit (actions/realmLimits.ts) answers with Zulip's kind of error.
          throw error instanceof ApiError ? new CliError(error.message) : error;
        },
      );
      print(`Created the user ${user.email} (id ${user.id}, ${roleName(user.role)}) in "${realm.name}":`);
      if (givenPassword === undefined) print(`  password: ${password}`);
      print(`  API key:  ${user.api_key}`);
      return 0;
    });
  },
};

export const changeRoleCommand: Command = {
  name: "change-role",
  summary: "Change a user's role.",
  options: {
    realm: realmOption,
    email: emailOption,
    role: { type: "string", value: roleList, help: "the new role", required: true },
  },
  async run(config, args) {
    const role = parseRole(requiredOption(args, "role"));
    return withContext(config, async (ctx) => {
      const realm = await resolveRealm(ctx, stringOption(args, "realm"));
      const user = await resolveUser(ctx, realm, requiredOption(args, "email"));
      if (user.role === role) {
        print(`${user.email} is already ${roleName(role)}.`);
        return 0;
      }
      await transaction(ctx, async (tx) => {
        if (await isLastOwner(tx, user)) {
          throw new CliError("The owner permission cannot be removed from the only organization owner.");
        }
        await doChangeUserRole(tx, user, role, null);
      });
      print(`${user.email} is now ${roleName(role)} (was ${roleName(user.role)}).`);
      return 0;
    });
  },
};

export const apiKeyCommand: Command = {
  name: "api-key",
  summary: "Print a user's API key (with --regenerate, replace it first: the old key stops working).",
  options: {
    realm: realmOption,
    email: emailOption,
    regenerate: { type: "boolean", help: "replace the key with a new one" },
  },
  async run(config, args) {
    return withContext(config, async (ctx) => {
      const realm = await resolveRealm(ctx, stringOption(args, "realm"));
      const user = await resolveUser(ctx, realm, requiredOption(args, "email"));
      const key = args.values.regenerate ? await transaction(ctx, (tx) => doRegenerateApiKey(tx, user, user)) : user.api_key;
      print(key);
      return 0;
    });
  },
};

export const resetPasswordCommand: Command = {
  name: "reset-password",
  summary: "Set a user's password (generated and printed when --password is absent).",
  options: {
    realm: realmOption,
    email: emailOption,
    password: { type: "string", value: "PASSWORD", help: "the new password" },
  },
  async run(config, args) {
    const givenPassword = stringOption(args, "password");
    const password = givenPassword === undefined ? generatePassword() : checkPassword(givenPassword, "password");
    return withContext(config, async (ctx) => {
      const realm = await resolveRealm(ctx, stringOption(args, "realm"));
      const user = await resolveUser(ctx, realm, requiredOption(args, "email"));
      if (user.is_bot) throw new CliError(`${user.email} is a bot: bots authenticate with their API key, not a password`);
      const hash = await hashPassword(password, config.fastPasswordHashing);
      await transaction(ctx, async (tx) => {
        await userStore.update(tx.q, user.id, { password_hash: hash });
        await auditLogStore.insert(tx.q, { realm_id: realm.id, event_type: "user_password_changed", modified_user_id: user.id });
      });
      print(`Changed the password of ${user.email}.`);
      if (givenPassword === undefined) print(`  password: ${password}`);
      return 0;
    });
  },
};
