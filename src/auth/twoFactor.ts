import type { TOTP } from "otpauth";
import type { AppContext } from "../appContext.js";
import type { Realm, User } from "../db/schema.js";
import { ApiError, OrganizationOwnerRequiredError, RateLimitedError } from "../lib/errors.js";
import { isOwner } from "../models/roles.js";
import { realmStore } from "../store/realms.js";
import { twoFactorStore } from "../store/twoFactor.js";
import { lazy } from "../util/lazy.js";
import { nowSeconds } from "../util/time.js";
import { backupCodeHash, newBackupCodes, normalBackupCode, openSecret, sealSecret, withoutBackupCode } from "./twoFactorSecrets.js";

/**
 * Two-factor authentication, as Zulip's (TWO_FACTOR_AUTHENTICATION_ENABLED, django-two-factor-auth
 * with a TOTP device and backup tokens): a user may add an authenticator app (RFC 6238, 30-second
 * steps, 6 digits, SHA-1: what every app reads from the QR code) and then needs one of its codes,
 * or one of ten single-use backup codes, after the password on the web login form.
 *
 * Where it applies is Zulip's choice too: only the web password form asks. Identity providers
 * (OIDC, SAML, social logins) and the development login sign in without it, as Zulip's do_login
 * marks their sessions verified, and POST /fetch_api_key (the mobile apps' password login) does not
 * ask either: Zulip's api_fetch_api_key has no second step (zulip/zulip#16753 discusses it).
 *
 * Offered when the server has it on (PARLEY_TWO_FACTOR, default on) and the organization has not
 * turned it off: a Parley-only setting, since Zulip has none (owners, on /account/two_factor/).
 */

/** otpauth and qrcode, loaded when someone sets up an app or types a code from one. */
const loadOtpauth = lazy(() => import("otpauth"));
const loadQrCode = lazy(async () => (await import("qrcode")).default);

/** A code from the app: 6 digits, accepted one 30-second step early or late. */
const TOTP_DIGITS = 6;
const TOTP_PERIOD = 30;
const TOTP_WINDOW = 1;

/** The Parley-only key in realms.settings; absent means on. */
const REALM_SETTING = "parley_two_factor_enabled";

export class TwoFactorCodeError extends ApiError {
  constructor() {
    super("The code is not valid or was already used. Enter a new code from your app, or an unused backup code.");
  }
}

/** Whether the organization lets its members use two-factor authentication (its owners decide). */
export function organizationAllowsTwoFactor(realm: Pick<Realm, "settings">): boolean {
  try {
    return (JSON.parse(realm.settings || "{}") as Record<string, unknown>)[REALM_SETTING] !== false;
  } catch {
    return true;
  }
}

/** Whether people of the organization can set up and are asked for a second factor. */
export function twoFactorOffered(ctx: AppContext, realm: Pick<Realm, "settings">): boolean {
  return ctx.config.twoFactor && organizationAllowsTwoFactor(realm);
}

/** Turns two-factor authentication on or off for the organization (owners only). */
export async function setOrganizationTwoFactor(ctx: AppContext, actor: User, realm: Realm, on: boolean): Promise<void> {
  if (!isOwner(actor)) throw new OrganizationOwnerRequiredError();
  const stored = JSON.parse(realm.settings || "{}") as Record<string, unknown>;
  if (on) delete stored[REALM_SETTING];
  else stored[REALM_SETTING] = false;
  await realmStore.update(ctx.db.kysely, realm.id, { settings: JSON.stringify(stored) });
}

/** Whether the user has a confirmed authenticator app. */
export async function hasTwoFactor(ctx: AppContext, userId: number): Promise<boolean> {
  const device = await twoFactorStore.get(ctx.db.kysely, userId);
  return device?.confirmed_at != null;
}

/** Whether a password login of the user must also bring a code. */
export async function secondFactorRequired(ctx: AppContext, realm: Realm, user: User): Promise<boolean> {
  return twoFactorOffered(ctx, realm) && (await hasTwoFactor(ctx, user.id));
}

/** How many backup codes the user has left. */
export async function backupCodesLeft(ctx: AppContext, userId: number): Promise<number> {
  const device = await twoFactorStore.get(ctx.db.kysely, userId);
  return device ? (JSON.parse(device.backup_codes) as string[]).length : 0;
}

async function totp(realm: Realm, user: User, secret: string): Promise<TOTP> {
  const { Secret, TOTP } = await loadOtpauth();
  return new TOTP({
    issuer: realm.name,
    label: user.delivery_email,
    algorithm: "SHA1",
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD,
    secret: Secret.fromBase32(secret),
  });
}

export interface TwoFactorSetup {
  /** The key in base32, for typing into an app. */
  secret: string;
  /** otpauth://totp/… with issuer = the organization's name, account = the email. */
  uri: string;
  /** The URI as a QR code: a data: URL of an SVG image (the pages' CSP allows data: images). */
  qrCode: string;
}

/** What the setup page shows for a key: the key, its otpauth:// URI and that URI as a QR code. */
async function setupOf(realm: Realm, user: User, secret: string): Promise<TwoFactorSetup> {
  const uri = (await totp(realm, user, secret)).toString();
  const QRCode = await loadQrCode();
  const svg = await QRCode.toString(uri, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  return { secret, uri, qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}` };
}

/** Starts setting up an app: a new key, kept (unconfirmed) until a code confirms it; null if the user has one already. */
export async function beginTwoFactorSetup(ctx: AppContext, realm: Realm, user: User): Promise<TwoFactorSetup | null> {
  const { Secret } = await loadOtpauth();
  const secret = new Secret({ size: 20 }).base32;
  if (!(await twoFactorStore.startSetup(ctx.db.kysely, user.id, sealSecret(ctx, user.id, secret)))) return null;
  return setupOf(realm, user, secret);
}

/** The key of the setup in progress (to show it again after a wrong code); null when none. */
export async function pendingTwoFactorSetup(ctx: AppContext, realm: Realm, user: User): Promise<TwoFactorSetup | null> {
  const device = await twoFactorStore.get(ctx.db.kysely, user.id);
  const secret = device && device.confirmed_at === null ? openSecret(ctx, user.id, device.secret) : null;
  if (!secret) return null;
  return setupOf(realm, user, secret);
}

/** Counts an attempt at a code for the user: as failed password logins, 5 per 30 minutes by default. */
async function countAttempt(ctx: AppContext, user: User): Promise<void> {
  const state = await ctx.rateLimiter.hit(`two_factor:${user.id}`, ctx.config.rateLimits.login);
  if (state.retryAfter > 0) throw new RateLimitedError(state.retryAfter);
}

/** The time step a code from the app belongs to (now, one early or one late); null if it is none of them. */
async function stepOfCode(realm: Realm, user: User, secret: string, typed: string): Promise<number | null> {
  const code = typed.replace(/\s/g, "");
  if (!new RegExp(`^\\d{${TOTP_DIGITS}}$`).test(code)) return null;
  const generator = await totp(realm, user, secret);
  const timestamp = Date.now();
  const delta = generator.validate({ token: code, timestamp, window: TOTP_WINDOW });
  return delta === null ? null : Math.floor(timestamp / 1000 / TOTP_PERIOD) + delta;
}

/** Confirms the app being set up with a code from it; returns the ten backup codes, shown once. */
export async function finishTwoFactorSetup(ctx: AppContext, realm: Realm, user: User, typed: string): Promise<string[]> {
  await countAttempt(ctx, user);
  const device = await twoFactorStore.get(ctx.db.kysely, user.id);
  const secret = device && device.confirmed_at === null ? openSecret(ctx, user.id, device.secret) : null;
  const step = secret ? await stepOfCode(realm, user, secret, typed) : null;
  if (!device || step === null) throw new TwoFactorCodeError();
  const codes = newBackupCodes();
  const hashes = JSON.stringify(codes.map((code) => backupCodeHash(ctx, user.id, code)));
  if (!(await twoFactorStore.confirm(ctx.db.kysely, user.id, device.secret, step, hashes, nowSeconds()))) throw new TwoFactorCodeError();
  await ctx.rateLimiter.reset(`two_factor:${user.id}`);
  return codes;
}

/**
 * Checks a second factor of a user with a confirmed app: a code from it not used before (its time
 * step later than the last accepted one), or an unused backup code, which is used up. Attempts
 * are rate limited per user; a success forgets the failed ones.
 */
export async function checkSecondFactor(ctx: AppContext, realm: Realm, user: User, typed: string): Promise<{ usedBackupCode: boolean }> {
  await countAttempt(ctx, user);
  const device = await twoFactorStore.get(ctx.db.kysely, user.id);
  if (!device || device.confirmed_at === null) throw new TwoFactorCodeError();
  let usedBackupCode = false;
  const backup = normalBackupCode(typed);
  if (backup !== null) {
    const remaining = withoutBackupCode(JSON.parse(device.backup_codes) as string[], backupCodeHash(ctx, user.id, backup));
    if (!remaining || !(await twoFactorStore.replaceBackupCodes(ctx.db.kysely, user.id, device.backup_codes, JSON.stringify(remaining)))) {
      throw new TwoFactorCodeError();
    }
    usedBackupCode = true;
  } else {
    const secret = openSecret(ctx, user.id, device.secret);
    const step = secret ? await stepOfCode(realm, user, secret, typed) : null;
    if (step === null || !(await twoFactorStore.useStep(ctx.db.kysely, user.id, step))) throw new TwoFactorCodeError();
  }
  await ctx.rateLimiter.reset(`two_factor:${user.id}`);
  return { usedBackupCode };
}

/** New backup codes (the old ones stop working), after a fresh second factor. */
export async function regenerateBackupCodes(ctx: AppContext, realm: Realm, user: User, typed: string): Promise<string[]> {
  await checkSecondFactor(ctx, realm, user, typed);
  const device = await twoFactorStore.get(ctx.db.kysely, user.id);
  if (!device) throw new TwoFactorCodeError();
  const codes = newBackupCodes();
  const hashes = JSON.stringify(codes.map((code) => backupCodeHash(ctx, user.id, code)));
  if (!(await twoFactorStore.replaceBackupCodes(ctx.db.kysely, user.id, device.backup_codes, hashes))) throw new TwoFactorCodeError();
  return codes;
}

/** Removes the user's app and backup codes, after a fresh second factor. */
export async function disableTwoFactor(ctx: AppContext, realm: Realm, user: User, typed: string): Promise<void> {
  await checkSecondFactor(ctx, realm, user, typed);
  await twoFactorStore.delete(ctx.db.kysely, user.id);
}
