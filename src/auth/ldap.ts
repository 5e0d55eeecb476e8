import { type PasswordMethods, PasswordCheckUnavailableError } from "../actions/login.js";
import type { AppContext } from "../appContext.js";
import type { Realm } from "../db/schema.js";
import { RealmDeactivatedError } from "../lib/errors.js";
import { userStore } from "../store/users.js";
import { ldapAccountStore } from "../store/ldapAccounts.js";
import { accountForLdapLogin, deactivateMissingAccount } from "./ldap/accounts.js";
import { DirectoryUnavailableError, LdapDirectory, type LdapSettings } from "./ldap/directory.js";
import { methodEnabled } from "./methods.js";

/**
 * Signing in with a password the LDAP directory checks (Zulip's ZulipLDAPAuthBackend): the login
 * form and POST /fetch_api_key take the person's LDAP username or email address; a bind as them
 * checks the password (src/auth/ldap/directory.ts); their account is then found, brought up to
 * date from the directory, or created (src/auth/ldap/accounts.ts). `parley ldap-sync` runs the
 * same reconciliation for everyone (src/auth/ldap/sync.ts).
 */

const directories = new WeakMap<LdapSettings, LdapDirectory>();

/** The directory of these settings (its CA file read once). */
export function ldapDirectory(settings: LdapSettings): LdapDirectory {
  let directory = directories.get(settings);
  if (!directory) {
    directory = new LdapDirectory(settings);
    directories.set(settings, directory);
  }
  return directory;
}

/** LDAP's part of password login, and the organization's choice of Parley's own passwords. */
export const passwordMethods: PasswordMethods = {
  async directoryLogin(ctx, realm, username, password) {
    const settings = ctx.config.auth.ldap;
    if (settings === undefined) return null;
    if (!methodEnabled(ctx, realm, "LDAP")) return null;
    // No account is looked up or created in a deactivated organization.
    if (realm.deactivated) throw new RealmDeactivatedError();
    let answer;
    try {
      answer = await ldapDirectory(settings).login(username.trim(), password);
    } catch (error) {
      if (!(error instanceof DirectoryUnavailableError)) throw error;
      ctx.log.error({ err: error }, "LDAP sign-in: the directory cannot be asked");
      throw new PasswordCheckUnavailableError();
    }
    if (answer === "wrong-password") return null;
    if (answer === "missing") {
      if (settings.deactivate_missing) await deactivateIfMissing(ctx, settings, realm, username.trim());
      return null;
    }
    return accountForLdapLogin(ctx, realm, answer);
  },
};

/**
 * The directory has nobody by the name typed: the account with that email address is deactivated,
 * unless the directory still has the entry it signed in as before (its address changed there).
 */
async function deactivateIfMissing(ctx: AppContext, settings: LdapSettings, realm: Realm, username: string): Promise<void> {
  const user = await userStore.getByEmail(ctx.db.kysely, realm.id, username);
  if (!user || !user.is_active || user.is_bot) return;
  const dn = (await ldapAccountStore.listDns(ctx.db.kysely, [user.id])).get(user.id);
  try {
    if (dn !== undefined && (await ldapDirectory(settings).findByDn(dn)) !== null) return;
  } catch (error) {
    if (!(error instanceof DirectoryUnavailableError)) throw error;
    ctx.log.error({ err: error }, "LDAP: the directory cannot be asked");
    return;
  }
  await deactivateMissingAccount(ctx, realm, user);
}
