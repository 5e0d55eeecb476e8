import fs from "node:fs";
import * as z from "zod";

/**
 * The identity providers this server offers (Zulip's SOCIAL_AUTH_* and AUTH_LDAP_* settings):
 * a JSON file named by PARLEY_AUTH_FILE, read and validated once at start. Every section is
 * optional; a server without the file offers email and password only. docs/authentication.md
 * shows each section with a worked example.
 */

const name = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, "must be 1 to 40 lowercase letters, digits, - or _");
const url = z.url({ protocol: /^https?$/ });
const oauthClient = { client_id: z.string().min(1), client_secret: z.string().min(1) };

/** How a provider appears: the button's words and icon (Zulip's display_name, display_icon). */
const display = { display_name: z.string().min(1).max(60).optional(), display_icon: z.string().min(1).optional() };

const oidcProvider = z.strictObject({
  name,
  ...display,
  /** The issuer; its /.well-known/openid-configuration is read at start (discovery). */
  issuer: url,
  ...oauthClient,
  scopes: z.array(z.string().min(1)).default(["openid", "profile", "email"]),
  /** Accept an email the provider does not mark as verified (email_verified false or absent). */
  accept_unverified_email: z.boolean().default(false),
});

const samlIdp = z.strictObject({
  name,
  ...display,
  /** The IdP's entityID. */
  entity_id: z.string().min(1),
  /** Its single sign-on URL (HTTP-Redirect binding). */
  url,
  /** PEM file(s) of the certificate(s) the IdP signs with. */
  x509cert_files: z.array(z.string().min(1)).min(1),
  /** Attribute names in the assertion; the email falls back to the NameID. */
  attr_email: z.string().min(1).optional(),
  attr_full_name: z.string().min(1).optional(),
  attr_first_name: z.string().min(1).optional(),
  attr_last_name: z.string().min(1).optional(),
});

export const authSettingsSchema = z.strictObject({
  oidc: z.array(oidcProvider).default([]),
  github: z
    .strictObject({
      ...oauthClient,
      ...display,
      /** Only members of this organization (its login name) may sign in. */
      organization: z.string().min(1).optional(),
      /** Only active members of this team (its numeric id) may sign in. */
      team_id: z.number().int().positive().optional(),
      /** GitHub Enterprise: the web and API base URLs (default github.com, api.github.com). */
      url: url.default("https://github.com"),
      api_url: url.default("https://api.github.com"),
    })
    .optional(),
  gitlab: z.strictObject({ ...oauthClient, ...display, /** Self-hosted GitLab's URL. */ url: url.default("https://gitlab.com") }).optional(),
  google: z
    .strictObject({ ...oauthClient, ...display, /** Google's issuer; changed only by tests. */ issuer: url.default("https://accounts.google.com") })
    .optional(),
  saml: z
    .strictObject({
      /** This server's entityID (default: its URL + /saml/metadata.xml). */
      sp_entity_id: z.string().min(1).optional(),
      /** PEM files of the key and certificate this server signs requests and metadata with. */
      sp_private_key_file: z.string().min(1).optional(),
      sp_certificate_file: z.string().min(1).optional(),
      idps: z.array(samlIdp).min(1),
    })
    .refine(
      (saml) => (saml.sp_private_key_file === undefined) === (saml.sp_certificate_file === undefined),
      "set both sp_private_key_file and sp_certificate_file, or neither",
    )
    .optional(),
  ldap: z
    .strictObject({
      /** ldap://host:389 or ldaps://host:636. */
      url: z.string().regex(/^ldaps?:\/\/./, "must start with ldap:// or ldaps://"),
      start_tls: z.boolean().default(false),
      /** PEM file of the CA that signed the directory's certificate (ldaps:// or StartTLS). */
      ca_file: z.string().min(1).optional(),
      /** The account searches run as (unset: anonymous). */
      bind_dn: z.string().min(1).optional(),
      bind_password: z.string().optional(),
      /** Direct bind: the user's DN, with %(user)s for what they typed (Zulip's AUTH_LDAP_USER_DN_TEMPLATE). */
      user_dn_template: z.string().includes("%(user)s").optional(),
      /** Search-then-bind: where and how to find the user (filter with %(user)s). */
      user_search: z.strictObject({ base: z.string().min(1), filter: z.string().includes("%(user)s") }).optional(),
      /** The attributes Parley reads (Zulip's AUTH_LDAP_USER_ATTR_MAP). */
      attrs: z
        .strictObject({
          full_name: z.string().min(1).default("cn"),
          email: z.string().min(1).default("mail"),
        })
        .default({ full_name: "cn", email: "mail" }),
      /** Deactivate Parley users whom the directory no longer has (at login and in `parley ldap-sync`). */
      deactivate_missing: z.boolean().default(false),
      /** How long to wait for the directory (to connect, and for each answer) before giving up. */
      timeout_seconds: z.number().positive().max(120).default(10),
    })
    .refine((ldap) => (ldap.user_dn_template === undefined) !== (ldap.user_search === undefined), "set exactly one of user_dn_template and user_search")
    .optional(),
});

export type AuthSettings = z.output<typeof authSettingsSchema>;

/** No file: no external providers. */
export const NO_AUTH_SETTINGS: AuthSettings = authSettingsSchema.parse({});

/** Reads and validates the file; the message of a thrown Error names what is wrong. */
export function readAuthSettings(file: string): AuthSettings {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`cannot read ${file} as JSON (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
  const parsed = authSettingsSchema.safeParse(raw);
  if (!parsed.success) throw new Error(parsed.error.issues.map((issue) => `${issue.path.join(".") || "(file)"}: ${issue.message}`).join("; "));
  const names = parsed.data.oidc.map((p) => p.name);
  if (new Set(names).size !== names.length) throw new Error("oidc: two providers have the same name");
  const idps = parsed.data.saml?.idps.map((p) => p.name) ?? [];
  if (new Set(idps).size !== idps.length) throw new Error("saml.idps: two IdPs have the same name");
  return parsed.data;
}
