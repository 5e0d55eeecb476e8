import { type Kysely, type Migration, type MigrationProvider, Migrator } from "kysely";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import { type Db, checkReachable, openDb } from "./connect.js";
import type { Dialect } from "./dialect.js";
import * as createSchema from "./migrations/2026-11-22T0330-create-schema.js";
import * as addRealmEmojiActiveNameIndex from "./migrations/2026-11-22T0450-add-realm-emoji-active-name-index.js";
import * as addMessageSearch from "./migrations/2026-11-22T0510-add-message-search.js";
import * as renameExtraEmojiType from "./migrations/2026-11-24T0900-rename-extra-emoji-type.js";
import * as createEventQueues from "./migrations/2026-11-24T0910-create-event-queues.js";
import * as addBotDefaults from "./migrations/2026-11-25T1130-add-bot-defaults.js";
import * as createMissedMessageEmails from "./migrations/2026-11-25T1200-create-missed-message-emails.js";
import * as addUserMessageFlagIndexes from "./migrations/2026-11-25T1230-add-user-message-flag-indexes.js";
import * as createChannelDailyMessages from "./migrations/2026-11-25T1300-create-channel-daily-messages.js";
import * as addUserEmailLookupIndexes from "./migrations/2026-11-25T1400-add-user-email-lookup-indexes.js";
import * as addUserMessageFlagStatistics from "./migrations/2026-11-25T1500-add-user-message-flag-statistics.js";
import * as addPresenceUpdateIds from "./migrations/2026-11-26T0100-add-presence-update-ids.js";
import * as createSavedSnippetsBotStorage from "./migrations/2026-11-26T0200-create-saved-snippets-bot-storage.js";
import * as createLinkifiersPlaygrounds from "./migrations/2026-11-26T0300-create-linkifiers-playgrounds.js";
import * as addRealmUserSettingsDefaults from "./migrations/2026-11-26T0310-add-realm-user-settings-defaults.js";
import * as createInvitations from "./migrations/2026-11-27T0100-create-invitations.js";
import * as createRealmExports from "./migrations/2026-11-27T0200-create-realm-exports.js";
import * as createChannelEmailAddresses from "./migrations/2026-11-27T0300-create-channel-email-addresses.js";
import * as createImportRuns from "./migrations/2026-11-27T0700-create-import-runs.js";
import * as createRateLimits from "./migrations/2026-11-28T0200-create-rate-limits.js";
import * as shardChannelDailyMessages from "./migrations/2026-11-28T0300-shard-channel-daily-messages.js";
import * as indexTopicsCaseInsensitively from "./migrations/2026-11-28T0400-index-topics-case-insensitively.js";
import * as foldUnicodeCase from "./migrations/2026-11-28T2100-fold-unicode-case.js";
import * as renderProfileFieldValues from "./migrations/2026-11-28T2200-render-profile-field-values.js";
import * as indexUserTopicsByTopic from "./migrations/2026-11-29T0600-index-user-topics-by-topic.js";
import * as createAuthFlows from "./migrations/2026-11-29T0900-create-auth-flows.js";
import * as createLdapAccounts from "./migrations/2026-11-29T0910-create-ldap-accounts.js";
import * as createSamlAssertions from "./migrations/2026-11-29T1010-create-saml-assertions.js";
import * as createTwoFactor from "./migrations/2026-11-29T1020-create-two-factor.js";
import * as addSessionActivity from "./migrations/2026-11-29T1030-add-session-activity.js";
import * as addRealmLimits from "./migrations/2026-11-29T1510-add-realm-limits.js";
import * as dropUserMessageMessageKey from "./migrations/2026-11-29T1950-drop-user-message-message-key.js";

/**
 * Every migration, in order. Names are ISO timestamps + a verb phrase; a merged migration is
 * never edited. Each gets the dialect helpers, so the same file runs on SQLite and PostgreSQL.
 */
export const MIGRATIONS: Record<string, { up(db: Kysely<any>, d: Dialect): Promise<void> }> = {
  "2026-11-22T0330-create-schema": createSchema,
  "2026-11-22T0450-add-realm-emoji-active-name-index": addRealmEmojiActiveNameIndex,
  "2026-11-22T0510-add-message-search": addMessageSearch,
  "2026-11-24T0900-rename-extra-emoji-type": renameExtraEmojiType,
  "2026-11-24T0910-create-event-queues": createEventQueues,
  "2026-11-25T1130-add-bot-defaults": addBotDefaults,
  "2026-11-25T1200-create-missed-message-emails": createMissedMessageEmails,
  "2026-11-25T1230-add-user-message-flag-indexes": addUserMessageFlagIndexes,
  "2026-11-25T1300-create-channel-daily-messages": createChannelDailyMessages,
  "2026-11-25T1400-add-user-email-lookup-indexes": addUserEmailLookupIndexes,
  "2026-11-25T1500-add-user-message-flag-statistics": addUserMessageFlagStatistics,
  "2026-11-26T0100-add-presence-update-ids": addPresenceUpdateIds,
  "2026-11-26T0200-create-saved-snippets-bot-storage": createSavedSnippetsBotStorage,
  "2026-11-26T0300-create-linkifiers-playgrounds": createLinkifiersPlaygrounds,
  "2026-11-26T0310-add-realm-user-settings-defaults": addRealmUserSettingsDefaults,
  "2026-11-27T0100-create-invitations": createInvitations,
  "2026-11-27T0200-create-realm-exports": createRealmExports,
  "2026-11-27T0300-create-channel-email-addresses": createChannelEmailAddresses,
  "2026-11-27T0700-create-import-runs": createImportRuns,
  "2026-11-28T0200-create-rate-limits": createRateLimits,
  "2026-11-28T0300-shard-channel-daily-messages": shardChannelDailyMessages,
  "2026-11-28T0400-index-topics-case-insensitively": indexTopicsCaseInsensitively,
  "2026-11-28T2100-fold-unicode-case": foldUnicodeCase,
  "2026-11-28T2200-render-profile-field-values": renderProfileFieldValues,
  "2026-11-29T0600-index-user-topics-by-topic": indexUserTopicsByTopic,
  "2026-11-29T0900-create-auth-flows": createAuthFlows,
  "2026-11-29T0910-create-ldap-accounts": createLdapAccounts,
  "2026-11-29T1010-create-saml-assertions": createSamlAssertions,
  "2026-11-29T1020-create-two-factor": createTwoFactor,
  "2026-11-29T1030-add-session-activity": addSessionActivity,
  "2026-11-29T1510-add-realm-limits": addRealmLimits,
  "2026-11-29T1950-drop-user-message-message-key": dropUserMessageMessageKey,
};

type MigrationModule = { up(db: Kysely<any>, d: Dialect): Promise<void> };

/**
 * Migrations that landed under a name carrying a working tag (an issue or work-stream label),
 * by that name → their name now. Databases record the migrations they had by name, and a
 * database that recorded the former name keeps it: the migrator is given the name the database
 * knows (withRecordedNames), so nothing is written to rename them, an upgrade that fails leaves
 * the database as an older version left it, and that older version can still open it. The files
 * and the databases created since carry the names of MIGRATIONS. Names never change again: a new
 * migration gets a plain name from the start.
 */
export const FORMER_MIGRATION_NAMES: Readonly<Record<string, string>> = {
  "2026-11-26T0100-bugs15-add-presence-update-ids": "2026-11-26T0100-add-presence-update-ids",
  "2026-11-26T0300-realm15-create-linkifiers-playgrounds": "2026-11-26T0300-create-linkifiers-playgrounds",
  "2026-11-26T0310-realm15-add-realm-user-settings-defaults": "2026-11-26T0310-add-realm-user-settings-defaults",
  "2026-11-27T0100-inv15-create-invitations": "2026-11-27T0100-create-invitations",
  "2026-11-27T0200-export15-create-realm-exports": "2026-11-27T0200-create-realm-exports",
  "2026-11-27T0300-md15-create-channel-email-addresses": "2026-11-27T0300-create-channel-email-addresses",
  "2026-11-27T0700-import21-create-import-runs": "2026-11-27T0700-create-import-runs",
  "2026-11-28T0200-mp18-create-rate-limits": "2026-11-28T0200-create-rate-limits",
  "2026-11-28T0300-perf18-shard-channel-daily-messages": "2026-11-28T0300-shard-channel-daily-messages",
  "2026-11-28T0400-perf18-index-topics-case-insensitively": "2026-11-28T0400-index-topics-case-insensitively",
  "2026-11-28T2100-i32-fold-unicode-case": "2026-11-28T2100-fold-unicode-case",
  "2026-11-28T2200-i32-render-profile-field-values": "2026-11-28T2200-render-profile-field-values",
};

/** `migrations`, each under the name this database recorded it by, if it recorded a former one. */
function withRecordedNames(migrations: Record<string, MigrationModule>, recorded: readonly string[]): Record<string, MigrationModule> {
  const formerNameOf = new Map(Object.entries(FORMER_MIGRATION_NAMES).map(([former, name]) => [name, former]));
  const known = new Set(recorded);
  return Object.fromEntries(
    Object.entries(migrations).map(([name, migration]) => {
      const former = formerNameOf.get(name);
      return [former !== undefined && known.has(former) ? former : name, migration];
    }),
  );
}

class StaticProvider implements MigrationProvider {
  constructor(
    private readonly dialect: Dialect,
    private readonly migrations: Record<string, MigrationModule>,
  ) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return Object.fromEntries(Object.entries(this.migrations).map(([name, m]) => [name, { up: (db: Kysely<any>) => m.up(db, this.dialect) }]));
  }
}

/** The names of the migrations this database has had, in order. */
export async function appliedMigrations(kysely: Kysely<any>): Promise<string[]> {
  const tables = await kysely.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((t) => t.name === "parley_migrations")) return [];
  const rows = await kysely.selectFrom("parley_migrations").select("name").orderBy("name").execute();
  return rows.map((r) => r.name as string);
}

/** A database this version of Parley cannot use (migrated by a newer version). */
export class NewerDatabaseError extends Error {}

/** Opens the configured database, checks that it answers, and applies pending migrations. */
export async function openMigratedDb(
  config: Config,
  options: { log?: Logger; onStatement?: (seconds: number, failed: boolean) => void; onApplied?: (names: string[]) => void } = {},
): Promise<Db> {
  const { log, onStatement, onApplied } = options;
  const db = openDb(config.database, { log, onStatement, connectTimeoutSeconds: config.databaseTimeoutSeconds });
  try {
    await checkReachable(db, config.database, config.databaseTimeoutSeconds);
    const applied = await migrateToLatest(db.kysely, db.dialect);
    onApplied?.(applied);
    return db;
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
}

/** Applies every pending migration; returns the names applied. Throws on failure. */
export async function migrateToLatest(kysely: Kysely<any>, dialect: Dialect): Promise<string[]> {
  return runMigrations(kysely, dialect, withRecordedNames(MIGRATIONS, await appliedMigrations(kysely)));
}

/**
 * Applies the pending ones of `migrations`, all in one transaction (on both engines): a failure or
 * a process killed half-way leaves the database as it was, and the next start applies them again.
 * A database that has migrations this version does not know was made by a newer version: refused.
 */
export async function runMigrations(kysely: Kysely<any>, dialect: Dialect, migrations: Record<string, MigrationModule>): Promise<string[]> {
  const migrator = new Migrator({
    db: kysely,
    provider: new StaticProvider(dialect, migrations),
    migrationTableName: "parley_migrations",
    migrationLockTableName: "parley_migrations_lock",
    // Kysely's default orders names with localeCompare, whose first call loads ICU's collation
    // tables: ~2.5 MiB of the node binary's pages that an idle server then keeps. Our names start
    // with distinct ASCII timestamps, so comparing code units gives the same order.
    nameComparator: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
  });
  const unknown = (await appliedMigrations(kysely)).filter((name) => !(name in migrations));
  if (unknown.length > 0) {
    throw new NewerDatabaseError(
      `This database was upgraded by a newer version of Parley: it has migrations this version does not know (${unknown.join(", ")}). ` +
        "Run that newer version, or restore a backup made before the upgrade (see docs/upgrading.md).",
    );
  }
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName;
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(failed ? `Migration ${failed} failed: ${message}` : `Migrations failed: ${message}`);
  }
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}
