import fs from "node:fs";
import type { ConnectionOptions } from "node:tls";
import type { Client, Entry } from "ldapts";
import { lazy } from "../../util/lazy.js";
import type { AuthSettings } from "../settings.js";

/**
 * The LDAP directory (OpenLDAP, Active Directory, …) as Parley asks it things: who a username or
 * an email address is, whether a password is theirs (a bind as them), and what the directory says
 * their name and email are. One connection per question, closed after it; every wait is bounded
 * by `timeout_seconds`, so a directory that does not answer gives DirectoryUnavailableError, not a
 * hang. Values from people (usernames, addresses) are escaped for where they go: a DN value
 * (RFC 4514) in user_dn_template, a filter value (RFC 4515) in user_search and the email search,
 * so nobody widens a search or names another entry by typing `*`, `)(` or `,`.
 */

export type LdapSettings = NonNullable<AuthSettings["ldap"]>;

/** An entry of the directory, as Parley reads it. */
export interface DirectoryPerson {
  dn: string;
  email: string | null;
  fullName: string | null;
}

/** The directory could not be asked (refused, timed out, TLS failed, an unexpected answer). */
export class DirectoryUnavailableError extends Error {}

/** ldapts, loaded at the first question to the directory: only servers with LDAP sign-in ask any. */
const loadLdapts = lazy(() => import("ldapts"));

/** Zulip's %(user)s placeholder in user_dn_template and user_search.filter. */
const USER_PLACEHOLDER = "%(user)s";

/** RFC 4514: the characters that must be escaped in an attribute value of a DN. */
export function escapeDnValue(value: string): string {
  let escaped = value.replace(/["+,;<>\\=]/g, (c) => `\\${c}`).replace(/[\0-\x1f]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
  if (escaped.startsWith(" ") || escaped.startsWith("#")) escaped = `\\${escaped}`;
  if (escaped.endsWith(" ") && !escaped.endsWith("\\ ")) escaped = `${escaped.slice(0, -1)}\\ `;
  return escaped;
}

/**
 * RFC 4515: a value inside a search filter (`*`, `(`, `)`, `\` and NUL become \2a, \28, \29, \5c, \00).
 * What ldapts's Filter.escape does with a string, here so that escaping needs no ldapts loaded.
 */
export function escapeFilterValue(value: string): string {
  return value.replace(/[*()\\\0]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/** The DN after the first RDN of the template: where people's entries are, for the email search. */
function templateParent(template: string): string {
  const match = /^(?:[^\\,]|\\.)*,(.*)$/.exec(template);
  return match?.[1]?.trim() ?? "";
}

const looksLikeEmail = (value: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);

function firstValue(entry: Entry, attribute: string): string | null {
  const key = Object.keys(entry).find((name) => name.toLowerCase() === attribute.toLowerCase());
  const raw = key === undefined ? undefined : entry[key];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined) return null;
  const text = (Buffer.isBuffer(value) ? value.toString("utf8") : String(value)).trim();
  return text === "" ? null : text;
}

export class LdapDirectory {
  private readonly ca: Buffer | undefined;

  constructor(private readonly settings: LdapSettings) {
    this.ca = settings.ca_file === undefined ? undefined : fs.readFileSync(settings.ca_file);
  }

  /** The attributes Parley reads from an entry. */
  private get attributes(): string[] {
    return [this.settings.attrs.email, this.settings.attrs.full_name];
  }

  private person(entry: Entry): DirectoryPerson {
    return { dn: entry.dn, email: firstValue(entry, this.settings.attrs.email), fullName: firstValue(entry, this.settings.attrs.full_name) };
  }

  /**
   * Checks the password by binding as the person it names (their LDAP username, or an email the
   * directory has) and returns their entry; "wrong-password" when the bind is refused for an entry
   * that exists (or several entries match), "missing" when the directory has nobody by that name.
   * An empty password is refused before any bind: LDAP servers take a simple bind without password
   * as an anonymous one (RFC 4513 5.1.2), which would "succeed".
   */
  async login(username: string, password: string): Promise<DirectoryPerson | "wrong-password" | "missing"> {
    if (password === "" || username === "") return "wrong-password";
    const dn = await this.resolveDn(username);
    if (dn === "ambiguous") return "wrong-password";
    if (dn === null) return "missing";
    const { InvalidCredentialsError } = await loadLdapts();
    const person = await this.withClient(async (client) => {
      try {
        await client.bind(dn, password);
      } catch (error) {
        if (error instanceof InvalidCredentialsError) return null;
        throw error;
      }
      // Read as the person (the usual ACLs let people read their own entry), else as bind_dn.
      return (await this.readEntry(client, dn)) ?? (await this.findByDn(dn));
    });
    if (person !== null) return person;
    // A DN made from user_dn_template is not known to exist until it is read.
    return (await this.findByDn(dn)) === null ? "missing" : "wrong-password";
  }

  /** The person with this email address, if exactly one entry has it. */
  async findByEmail(email: string): Promise<DirectoryPerson | null> {
    return this.withServiceClient(async (client) => {
      const entries = await this.searchByEmail(client, email);
      return entries.length === 1 ? this.person(entries[0]!) : null;
    });
  }

  /** The entry at this DN, or null when the directory has none there. */
  async findByDn(dn: string): Promise<DirectoryPerson | null> {
    return this.withServiceClient((client) => this.readEntry(client, dn));
  }

  /** The person this username names (user_dn_template or user_search), or null. */
  async findByUsername(username: string): Promise<DirectoryPerson | null> {
    return this.withServiceClient(async (client) => {
      const dn = await this.usernameDn(client, username);
      return dn === null || dn === "ambiguous" ? null : this.readEntry(client, dn);
    });
  }

  /** The DN to bind as for what someone typed: an email the directory has, else their username. */
  private async resolveDn(username: string): Promise<string | "ambiguous" | null> {
    return this.withServiceClient(async (client) => {
      if (looksLikeEmail(username)) {
        // Zulip's django_to_ldap_username: an address the directory has names its one entry;
        // otherwise what was typed is taken as the LDAP username.
        const entries = await this.searchByEmail(client, username);
        if (entries.length === 1) return entries[0]!.dn;
      }
      return this.usernameDn(client, username);
    });
  }

  /** The DN for a username: user_dn_template's, or the one entry user_search finds. */
  private async usernameDn(client: Client, username: string): Promise<string | "ambiguous" | null> {
    const { user_dn_template: template, user_search: search } = this.settings;
    if (template !== undefined) return template.split(USER_PLACEHOLDER).join(escapeDnValue(username));
    if (search === undefined) return null;
    const filter = search.filter.split(USER_PLACEHOLDER).join(escapeFilterValue(username));
    const entries = await this.search(client, search.base, filter);
    // Exactly one: with two entries for one username we cannot tell who is meant.
    if (entries.length > 1) return "ambiguous";
    return entries[0]?.dn ?? null;
  }

  private async searchByEmail(client: Client, email: string): Promise<Entry[]> {
    const base = this.settings.user_search?.base ?? templateParent(this.settings.user_dn_template ?? "");
    return this.search(client, base, `(${this.settings.attrs.email}=${escapeFilterValue(email)})`);
  }

  private async search(client: Client, base: string, filter: string): Promise<Entry[]> {
    const { NoSuchObjectError } = await loadLdapts();
    try {
      // Two are enough to know the answer is not "exactly one".
      const { searchEntries } = await client.search(base, { scope: "sub", filter, attributes: this.attributes, sizeLimit: 2 });
      return searchEntries;
    } catch (error) {
      if (error instanceof NoSuchObjectError) return [];
      // More than the size limit: more than one entry.
      if (error instanceof Error && error.name === "SizeLimitExceededError") return [{ dn: "" }, { dn: "" }];
      throw error;
    }
  }

  private async readEntry(client: Client, dn: string): Promise<DirectoryPerson | null> {
    const { NoSuchObjectError } = await loadLdapts();
    try {
      const { searchEntries } = await client.search(dn, { scope: "base", filter: "(objectClass=*)", attributes: this.attributes });
      const [entry] = searchEntries;
      return entry === undefined ? null : this.person(entry);
    } catch (error) {
      if (error instanceof NoSuchObjectError) return null;
      throw error;
    }
  }

  /** A connection bound as the settings' bind_dn (anonymous without one). */
  private withServiceClient<T>(fn: (client: Client) => Promise<T>): Promise<T> {
    return this.withClient(async (client) => {
      if (this.settings.bind_dn !== undefined) await client.bind(this.settings.bind_dn, this.settings.bind_password ?? "");
      return fn(client);
    });
  }

  private async withClient<T>(fn: (client: Client) => Promise<T>): Promise<T> {
    const ldapts = await loadLdapts();
    const timeout = this.settings.timeout_seconds * 1000;
    const tlsOptions: ConnectionOptions = this.ca === undefined ? {} : { ca: [this.ca] };
    // ldapts speaks TLS from the first byte whenever tlsOptions are given, even to ldap://: only for ldaps://.
    const ldaps = this.settings.url.startsWith("ldaps:");
    const client = new ldapts.Client({ url: this.settings.url, timeout, connectTimeout: timeout, ...(ldaps ? { tlsOptions } : {}) });
    try {
      if (this.settings.start_tls) {
        // The certificate must name the host of the URL (checked against `host`, as for ldaps://).
        await client.startTLS({ ...tlsOptions, host: new URL(this.settings.url).hostname });
      }
      return await fn(client);
    } catch (error) {
      if (error instanceof DirectoryUnavailableError) throw error;
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw new DirectoryUnavailableError(`LDAP directory ${this.settings.url}: ${reason}`, { cause: error });
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }
}
