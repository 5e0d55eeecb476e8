import { createHash } from "node:crypto";
import * as z from "zod";
import type { AppContext } from "../appContext.js";
import type { Realm, User } from "../db/schema.js";
import type { Executor, Tx } from "../db/tx.js";
import { queueEmail } from "../email/queue.js";
import { apiKeysEqual, randomString } from "../lib/apiKeys.js";
import { confirmationStore } from "../store/confirmations.js";
import { realmStore } from "../store/realms.js";
import { sessionStore } from "../store/sessions.js";
import { userStore } from "../store/users.js";
import { parseJsonColumn } from "../util/jsonColumn.js";
import { nowSeconds } from "../util/time.js";
import { doChangePassword } from "./settings.js";
import { realmUrl, type UrlConfig } from "../lib/realms.js";

/**
 * "Forgot your password?" (Zulip's ZulipPasswordResetForm and Django's PasswordResetConfirmView):
 * an address typed on /accounts/password/reset/ gets an email, and the page answers the same
 * whatever the address, so it tells nobody which addresses have accounts.
 *
 * - An active account in an active organization gets a link
 *   /accounts/password/reset/<uidb64>/<token>/ (Django's shape: the user id in URL-safe base64,
 *   then a random token). Each organization's account of that address gets its own link.
 * - A deactivated account gets an email saying so (Zulip's `user_deactivated` text); an account of
 *   a deactivated organization, or a bot, gets nothing (Zulip logs and returns).
 * - An address with no account gets Zulip's "you do not have an account" email.
 *
 * The token is a one-time confirmation (confirmations table, kind `password_reset`): only its
 * SHA-256 is stored, so the table does not hold working links; it is compared in constant time,
 * used at most once, expires after PASSWORD_RESET_SECONDS, and is bound to the account's password
 * hash and address when it was made, so a password or address change kills it (as Django's
 * token, which hashes the password into the token).
 *
 * Setting the new password ends every web session of the account (in Zulip, Django's session
 * hash includes the password hash, so a new password logs out every session); the API key stays,
 * as Zulip's do_change_password leaves it.
 */
const PASSWORD_RESET = "password_reset";

/**
 * How long a link works: Django's PASSWORD_RESET_TIMEOUT default (3 days), which Zulip does not
 * change (its other confirmation links last 1 day).
 */
export const PASSWORD_RESET_SECONDS = 3 * 24 * 3600;

const TOKEN_LENGTH = 32; // [A-Za-z0-9]: about 190 bits
const TOKEN_FORMAT = /^[A-Za-z0-9]{32}$/;
const resetData = z.object({ fingerprint: z.string() });

/** Why a reset link cannot be used; the page shows the message and changes nothing. */
export class PasswordResetLinkError extends Error {
  constructor() {
    super("This password reset link is invalid, has expired, or has already been used.");
  }
}

/**
 * The request form's work, in the caller's transaction: finds the accounts of the address in
 * `realmId`, the organization of the form's host, and queues the right email with its links.
 * Never tells the caller what it found.
 */
export async function doRequestPasswordReset(tx: Tx, config: UrlConfig, realmId: number, email: string): Promise<void> {
  const wanted = email.toLowerCase();
  const accounts = (await userStore.listByEmailInRealm(tx.q, realmId, email)).filter((u) => u.delivery_email.toLowerCase() === wanted && !u.is_bot);
  for (const user of accounts) {
    const realm = await realmStore.getById(tx.q, user.realm_id);
    if (!realm || realm.deactivated) continue;
    const orgUrl = realmUrl(config, realm);
    if (!user.is_active) {
      await queueEmail(tx, deactivatedEmail(orgUrl, realm, user));
      continue;
    }
    const token = randomString(TOKEN_LENGTH);
    const now = nowSeconds();
    await confirmationStore.insert(tx.q, {
      realm_id: realm.id,
      user_id: user.id,
      kind: PASSWORD_RESET,
      confirmation_key: tokenDigest(token),
      data: JSON.stringify({ fingerprint: accountFingerprint(user) }),
      created_at: now,
      expires_at: now + PASSWORD_RESET_SECONDS,
    });
    await queueEmail(tx, resetEmail(orgUrl, realm, user, passwordResetLink(orgUrl, user.id, token)));
  }
  if (accounts.length === 0) await queueEmail(tx, noAccountEmail(config.externalUrl, email));
}

/** What a usable link stands for. */
export interface PasswordResetLink {
  user: User;
  realm: Realm;
  confirmationId: number;
}

/** The account and confirmation of a link, or PasswordResetLinkError (the same one for every reason). */
export async function usablePasswordResetLink(q: Executor, uidb64: string, token: string): Promise<PasswordResetLink> {
  const userId = decodeUid(uidb64);
  if (userId === null || !TOKEN_FORMAT.test(token)) throw new PasswordResetLinkError();
  const digest = tokenDigest(token);
  const confirmation = await confirmationStore.getByKey(q, PASSWORD_RESET, digest);
  // The lookup is by a hash of the token; the comparison that decides is in constant time.
  if (!confirmation || !apiKeysEqual(confirmation.confirmation_key, digest) || confirmation.user_id !== userId) throw new PasswordResetLinkError();
  if (confirmation.used_at !== null || confirmation.expires_at < nowSeconds()) throw new PasswordResetLinkError();
  const user = await userStore.getById(q, userId);
  if (!user || !user.is_active || user.is_bot) throw new PasswordResetLinkError();
  const realm = await realmStore.getById(q, user.realm_id);
  if (!realm || realm.deactivated) throw new PasswordResetLinkError();
  const { fingerprint } = parseJsonColumn(resetData, confirmation.data, "confirmations.data (password reset)");
  if (!apiKeysEqual(fingerprint, accountFingerprint(user))) throw new PasswordResetLinkError();
  return { user, realm, confirmationId: confirmation.id };
}

/**
 * Sets the new password through the link (checked again here, in the transaction), uses the
 * link, and ends the account's web sessions. `passwordHash` comes from hashPassword() on a
 * password that passed checkNewPassword(), computed before the transaction.
 */
export async function doResetPassword(ctx: AppContext, tx: Tx, uidb64: string, token: string, passwordHash: string): Promise<User> {
  const { user, confirmationId } = await usablePasswordResetLink(tx.q, uidb64, token);
  if (!(await confirmationStore.markUsed(tx.q, confirmationId, nowSeconds()))) throw new PasswordResetLinkError();
  await doChangePassword(ctx, tx, user, passwordHash);
  await sessionStore.deleteForUser(tx.q, user.id);
  return user;
}

function passwordResetLink(orgUrl: string, userId: number, token: string): string {
  return `${orgUrl.replace(/\/+$/, "")}/accounts/password/reset/${Buffer.from(String(userId)).toString("base64url")}/${token}/`;
}

function decodeUid(uidb64: string): number | null {
  if (!/^[A-Za-z0-9_-]{1,16}$/.test(uidb64)) return null;
  const text = Buffer.from(uidb64, "base64url").toString("latin1");
  if (!/^[1-9]\d{0,14}$/.test(text)) return null;
  return Number(text);
}

function tokenDigest(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Changes when the password (hash) or the address does: an earlier link then stops working. */
function accountFingerprint(user: User): string {
  return createHash("sha256")
    .update(`${user.id}\0${user.delivery_email.toLowerCase()}\0${user.password_hash ?? ""}`)
    .digest("hex");
}

const SIGNATURE = "Thanks,\nParley\n";

function resetEmail(orgUrl: string, realm: Realm, user: User, link: string) {
  return {
    to: user.delivery_email,
    subject: `Reset your password for ${realm.name}`,
    text:
      `Hi ${user.full_name},\n\nSomeone (possibly you) asked to reset the password of your account ${user.delivery_email} ` +
      `in ${realm.name} (${orgUrl}).\n\nTo choose a new password, open this link within 3 days; it works once:\n    <${link}>\n\n` +
      `If you did not ask for this, ignore this email: your password stays as it is.\n\n${SIGNATURE}`,
    template: "password_reset",
  };
}

function deactivatedEmail(orgUrl: string, realm: Realm, user: User) {
  return {
    to: user.delivery_email,
    subject: `Reset your password for ${realm.name}`,
    text:
      `Someone (possibly you) asked to reset the password of ${user.delivery_email} in ${realm.name} (${orgUrl}), ` +
      `but that account has been deactivated. Please contact your organization administrator to reactivate it.\n\n${SIGNATURE}`,
    template: "password_reset",
  };
}

function noAccountEmail(externalUrl: string, email: string) {
  return {
    to: email,
    subject: "Reset your password",
    text:
      `Someone (possibly you) asked for a password reset email for ${email} on ${externalUrl}, ` +
      `but you do not have an active account there.\n\nIf you did not ask for this, you can ignore this email.\n\n${SIGNATURE}`,
    template: "password_reset",
  };
}
