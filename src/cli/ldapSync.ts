import { ldapDirectory } from "../auth/ldap.js";
import { DirectoryUnavailableError } from "../auth/ldap/directory.js";
import { SyncRefusedError, syncLdapAccounts } from "../auth/ldap/sync.js";
import { type Command, CliError, print, stringOption } from "./command.js";
import { resolveRealm, withContext } from "./context.js";

/**
 * `parley ldap-sync` (Zulip's manage.py sync_ldap_user_data): brings every active account of the
 * organization up to date from the LDAP directory of PARLEY_AUTH_FILE; run it from cron. With
 * --dry-run it prints what it would do and changes nothing.
 */
export const ldapSyncCommand: Command = {
  name: "ldap-sync",
  summary: "Copy names and email addresses from the LDAP directory; deactivate accounts it lacks (deactivate_missing).",
  options: {
    realm: { type: "string", value: "STRING_ID", help: "the organization (default: the only one)" },
    "dry-run": { type: "boolean", help: "print what would change, change nothing" },
  },
  async run(config, args) {
    const settings = config.auth.ldap;
    if (settings === undefined) throw new CliError('LDAP is not configured: PARLEY_AUTH_FILE has no "ldap" section (see docs/authentication.md)');
    const dryRun = args.values["dry-run"] === true;
    return withContext(config, async (ctx) => {
      const realm = await resolveRealm(ctx, stringOption(args, "realm"));
      let result;
      try {
        result = await syncLdapAccounts(ctx, realm, ldapDirectory(settings), { deactivateMissing: settings.deactivate_missing, dryRun });
      } catch (error) {
        if (error instanceof DirectoryUnavailableError || error instanceof SyncRefusedError) throw new CliError(error.message);
        throw error;
      }
      for (const line of result.lines) print(`  ${line}`);
      const verb = dryRun ? "would be" : "were";
      print(
        `${dryRun ? "Dry run: nothing was changed. " : ""}Checked ${result.checked} accounts of "${realm.name}": ` +
          `${result.updated} ${verb} updated, ${result.deactivated} ${verb} deactivated, ${result.missing} not in the directory and kept.`,
      );
      return 0;
    });
  },
};
