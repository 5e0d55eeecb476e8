import crypto from "node:crypto";
import type { FastifyRequest } from "fastify";
import type { AppContext } from "../appContext.js";
import type { Config } from "../config.js";
import type { Realm } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { InvalidSubdomainError } from "./errors.js";
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
 * The subdomain a host name addresses (Zulip's get_subdomain): the part before `.<rootDomain>`,
 * "" for the root domain itself, its `www.` alias and any other host name. The port, if any, is
 * ignored.
 */
export function subdomainOfHost(host: string, rootDomain: string): string {
  const name = hostnameOnly(host).toLowerCase().replace(/\.$/, "");
  const suffix = `.${rootDomain}`;
  if (!name.endsWith(suffix)) return "";
  const subdomain = name.slice(0, -suffix.length);
  return subdomain === "www" ? "" : subdomain;
}

function hostnameOnly(host: string): string {
  if (host.startsWith("[")) return host.slice(0, host.indexOf("]") + 1);
  const colon = host.lastIndexOf(":");
  return colon === -1 ? host : host.slice(0, colon);
}

/**
 * Whether `realm` is the organization served at `host` (Zulip's user_matches_subdomain): always
 * when the server has one organization for every host name (no root domain).
 */
export function realmServesHost(config: Pick<Config, "rootDomain">, realm: Pick<Realm, "string_id">, host: string | undefined): boolean {
  if (config.rootDomain === undefined) return true;
  return realm.string_id === subdomainOfHost(host ?? "", config.rootDomain);
}

/**
 * The organization a request is addressed to (Zulip's get_realm_from_request), the one place that
 * decides it: with a root domain, the one whose subdomain is the request's host; without, the
 * default realm. Undefined when there is none, and never the system bots' realm.
 */
export async function realmOfRequest(ctx: AppContext, request: FastifyRequest): Promise<Realm | undefined> {
  const { rootDomain } = ctx.config;
  if (rootDomain === undefined) return getDefaultRealm(ctx.db.kysely);
  const subdomain = subdomainOfHost(request.host, rootDomain);
  if (subdomain === SYSTEM_BOT_REALM) return undefined;
  return realmStore.getByStringId(ctx.db.kysely, subdomain);
}

/** What building an organization's URL needs of the configuration. */
export type UrlConfig = Pick<Config, "externalUrl" | "rootDomain">;

/**
 * realmOfRequest for what signs in to an organization (password login, fetch_api_key): Zulip's
 * InvalidSubdomainError (404 "Invalid subdomain") when the host names none.
 */
export async function requireRealmOfRequest(ctx: AppContext, request: FastifyRequest): Promise<Realm> {
  const realm = await realmOfRequest(ctx, request);
  if (!realm) throw new InvalidSubdomainError();
  return realm;
}

/**
 * The URL an organization is reached at (Zulip's realm.url): `<string_id>.<root domain>` with the
 * external URL's scheme and port when the server has a root domain, else the external URL. Links
 * in emails, `realm_url` and the other links of a realm are built on it.
 */
export function realmUrl(config: UrlConfig, realm: Pick<Realm, "string_id">): string {
  if (config.rootDomain === undefined || realm.string_id === "") return config.externalUrl;
  const url = new URL(config.externalUrl);
  url.hostname = `${realm.string_id}.${config.rootDomain}`;
  return url.toString().replace(/\/+$/, "");
}

/**
 * The URL of the organization a request is addressed to (realmUrl), else the server's external
 * URL: the base of what sends a browser back to the host it came from (identity providers'
 * redirect URIs, the SAML assertion consumer service).
 */
export async function urlOfRequest(ctx: AppContext, request: FastifyRequest): Promise<string> {
  const realm = await realmOfRequest(ctx, request);
  return realm ? realmUrl(ctx.config, realm) : ctx.config.externalUrl;
}

/** Zulip's get_realm_icon_url: the uploaded icon, else an identicon keyed on the realm id. */
export function realmIconUrl(realm: Realm): string {
  if (realm.icon_source === "U") return `/user_avatars/${realm.id}/realm/icon.png?version=${realm.icon_version}`;
  const hash = crypto.createHash("md5").update(String(realm.id)).digest("hex");
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon`;
}
