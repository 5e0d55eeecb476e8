import crypto from "node:crypto";
import type { FastifyRequest } from "fastify";
import type { AppContext } from "../appContext.js";
import type { Realm } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { SYSTEM_BOT_REALM } from "../models/systemBots.js";
import { realmStore } from "../store/realms.js";

/**
 * The organization this server serves at its root URL: the only realm that is not the system-bot
 * realm (the first by id if there are several). Undefined before the first organization exists.
 */
export async function getDefaultRealm(q: Executor): Promise<Realm | undefined> {
  const realms = await realmStore.list(q);
  return realms.find((realm) => realm.string_id !== SYSTEM_BOT_REALM);
}

/**
 * The organization a request without credentials is addressed to (Zulip's
 * get_valid_realm_from_request): the default realm for now. Hosting several organizations will
 * read the request's Host here, the one place that decides it. Undefined when there is none.
 */
export async function realmOfRequest(ctx: AppContext, _request: FastifyRequest): Promise<Realm | undefined> {
  return getDefaultRealm(ctx.db.kysely);
}

/** Zulip's get_realm_icon_url: the uploaded icon, else an identicon keyed on the realm id. */
export function realmIconUrl(realm: Realm): string {
  if (realm.icon_source === "U") return `/user_avatars/${realm.id}/realm/icon.png?version=${realm.icon_version}`;
  const hash = crypto.createHash("md5").update(String(realm.id)).digest("hex");
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon`;
}
