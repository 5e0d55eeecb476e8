import pino from "pino";
import { createContext } from "../app.js";
import type { AppContext } from "../appContext.js";
import type { Config } from "../config.js";
import type { Realm, User } from "../db/schema.js";
import { realmStore } from "../store/realms.js";
import { userStore } from "../store/users.js";
import { CliError, usageError } from "./command.js";

/** The realm of the system bots: never the default of --realm. */
export const INTERNAL_REALM = "zulipinternal";

/**
 * Runs `fn` with the application's context (database migrated, no HTTP, no job runner: jobs a
 * command queues, such as emails, are left for the server; with PARLEY_BUS_URL its events are
 * published to the server processes like theirs). Logs go to stderr, warnings only.
 */
export async function withContext<T>(config: Config, fn: (ctx: AppContext) => Promise<T>): Promise<T> {
  // A command is not the server process whose PARLEY_PROCESS_ID the settings may name.
  const ctx = await createContext({ ...config, processId: undefined }, pino({ level: "warn" }, pino.destination(2)));
  try {
    return await fn(ctx);
  } finally {
    // Multi-process mode: the command's events are on their way to every server process.
    await ctx.bus?.close();
    await ctx.db.close();
  }
}

const describeRealm = (stringId: string) => (stringId === "" ? `"" (the root domain)` : `"${stringId}"`);

/** The realm named by --realm, or the only organization when --realm is absent. */
export async function resolveRealm(ctx: AppContext, stringId: string | undefined): Promise<Realm> {
  if (stringId !== undefined) {
    const realm = await realmStore.getByStringId(ctx.db.kysely, stringId);
    if (!realm) throw new CliError(`no organization with string id ${describeRealm(stringId)}`);
    return realm;
  }
  const realms = (await realmStore.list(ctx.db.kysely)).filter((r) => r.string_id !== INTERNAL_REALM);
  const [only] = realms;
  if (realms.length === 1 && only !== undefined) return only;
  if (realms.length === 0) throw new CliError("there is no organization yet: create one with `parley create-organization`");
  throw usageError(`--realm is required: there are ${realms.length} organizations (${realms.map((r) => describeRealm(r.string_id)).join(", ")})`);
}

export async function resolveUser(ctx: AppContext, realm: Realm, email: string): Promise<User> {
  const user = await userStore.getByEmail(ctx.db.kysely, realm.id, email.trim());
  if (!user) throw new CliError(`no user with email "${email}" in organization ${describeRealm(realm.string_id)}`);
  return user;
}

export async function checkEmailFree(ctx: AppContext, realm: Realm, email: string): Promise<void> {
  if (await userStore.getByEmail(ctx.db.kysely, realm.id, email)) {
    throw new CliError(`a user with email "${email}" already exists in organization ${describeRealm(realm.string_id)}`);
  }
}
