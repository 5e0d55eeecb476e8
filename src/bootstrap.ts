import { transaction, type AppContext } from "./appContext.js";
import { doCreateRealm } from "./actions/realms.js";
import { doSetUpNewRealm } from "./actions/onboarding.js";
import { doCreateUser } from "./actions/createUser.js";
import { generatePassword, hashPassword } from "./lib/passwords.js";
import { Role } from "./models/roles.js";
import { realmStore } from "./store/realms.js";
import { seedDevelopmentRealm } from "./dev/seed.js";

export interface FirstStartCredentials {
  realmName: string;
  email: string;
  /** Shown once; absent when it came from PARLEY_ADMIN_PASSWORD. */
  generatedPassword: string | null;
  apiKey: string;
}

/**
 * On an empty database: in development mode, seed Zulip's development organization; otherwise
 * create the organization (with Zulip's system bots, initial channels and welcome messages) and
 * its owner (PARLEY_ADMIN_EMAIL / PARLEY_ADMIN_PASSWORD, or a generated password). Returns the owner's credentials the first time only.
 */
export async function ensureOrganization(ctx: AppContext): Promise<FirstStartCredentials | null> {
  if ((await realmStore.list(ctx.db.kysely)).length > 0) return null;
  if (ctx.config.dev) {
    await seedDevelopmentRealm(ctx);
    return null;
  }
  const email = ctx.config.admin.email ?? "owner@parley.example";
  const password = ctx.config.admin.password ?? generatePassword();
  const passwordHash = await hashPassword(password, ctx.config.fastPasswordHashing);
  const owner = await transaction(ctx, async (tx) => {
    const realm = await doCreateRealm(tx, { string_id: "", name: ctx.config.organizationName });
    const created = await doCreateUser(tx, realm, {
      email,
      full_name: "Owner",
      password_hash: passwordHash,
      role: Role.OWNER,
      can_create_users: true,
      can_change_user_emails: true,
    });
    await doSetUpNewRealm(tx, realm, created);
    return created;
  });
  return {
    realmName: ctx.config.organizationName,
    email: owner.email,
    generatedPassword: ctx.config.admin.password ? null : password,
    apiKey: owner.api_key,
  };
}
