import * as z from "zod";
import { transaction, type AppContext } from "../appContext.js";
import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { queueEmail } from "../email/queue.js";
import { badRequest, BotRequestNotAllowedError, RateLimitedError } from "../lib/errors.js";
import { userIdsWhoCanAccessUser } from "../lib/access.js";
import { randomString } from "../lib/apiKeys.js";
import { hashPassword, passwordLengthAllowed, verifyPassword } from "../lib/passwords.js";
import { canSeeDeliveryEmail, displayEmail } from "../lib/userPayload.js";
import {
  LANGUAGES,
  LEGACY_DISPLAY_SETTINGS,
  LEGACY_NOTIFICATION_SETTINGS,
  MAX_EMAIL_BATCHING_PERIOD_SECONDS,
  NOTIFICATION_SOUNDS,
  realmUserSettingsDefaults,
  serializeUserSettings,
  userSettings,
  type UserSettings,
  type UserSettingValue,
} from "../models/userSettings.js";
import { realmSettings } from "../models/realmSettings.js";
import { isAdmin } from "../models/roles.js";
import { auditLogStore } from "../store/auditLog.js";
import { confirmationStore } from "../store/confirmations.js";
import { realmStore } from "../store/realms.js";
import { sessionStore } from "../store/sessions.js";
import { userStore } from "../store/users.js";
import { nowSeconds } from "../util/time.js";
import { checkFullName, doChangeFullName, doChangeUserDeliveryEmail } from "./users.js";
import { notifyExportConsent } from "./createUser.js";
import { parseJsonColumn } from "../util/jsonColumn.js";
import { realmUrl } from "../lib/realms.js";

/** PATCH /settings, already parsed: each field is undefined when not sent. */
export interface SettingsUpdate {
  full_name?: string;
  email?: string;
  old_password?: string;
  new_password?: string;
  timezone?: string;
  settings: Partial<UserSettings>;
  /** The web session the change comes from, which a password change leaves signed in (undefined: an API key). */
  sessionId?: string;
}

/**
 * Zulip's json_change_settings: validates everything first, then, in one transaction, applies the
 * password change, starts an email change, renames, and changes settings. Unchanged values
 * change nothing and send no event. Password hashing (slow by design) runs before the
 * transaction opens.
 */
export async function checkUpdateSettings(ctx: AppContext, user: User, realm: Realm, update: SettingsUpdate): Promise<void> {
  if (user.is_bot) throw new BotRequestNotAllowedError();
  checkSettingValues(update.settings);
  const passwordHash = update.new_password === undefined ? undefined : await checkPasswordChange(ctx, user, update.old_password, update.new_password);
  const newEmail = update.email?.trim();
  const changesEmail = newEmail !== undefined && newEmail !== user.delivery_email;
  const fullName = update.full_name !== undefined && update.full_name !== user.full_name ? checkFullName(update.full_name) : undefined;

  await transaction(ctx, async (tx) => {
    if (changesEmail) {
      await checkEmailChange(tx, user, newEmail);
      const limit = await ctx.rateLimiter.hit(`email_change:${user.id}`, ctx.config.rateLimits.email);
      if (limit.retryAfter > 0) throw new RateLimitedError(limit.retryAfter);
    }
    if (passwordHash !== undefined) {
      await doChangePassword(ctx, tx, user, passwordHash);
      // Django, in Zulip: a new password ends every other session (the session hash holds the
      // password's); the one it was changed from stays (update_session_auth_hash).
      await sessionStore.deleteForUser(tx.q, user.id, update.sessionId);
    }
    if (changesEmail) await doStartEmailChange(tx, user, realmUrl(ctx.config, realm), newEmail);
    if (fullName !== undefined && fullName !== user.full_name) await doChangeFullName(tx, user, fullName, user);
    await doChangeUserSettings(tx, user, update.settings, update.timezone, realmUrl(ctx.config, realm));
  });
}

/** The range checks Zulip does beyond the parameter types (check_settings_values). */
function checkSettingValues(settings: Partial<UserSettings>): void {
  const { default_language: language, notification_sound: sound } = settings;
  const batching = settings.email_notifications_batching_period_seconds;
  if (language !== undefined && !Object.hasOwn(LANGUAGES, language)) throw badRequest("Invalid default_language");
  if (sound !== undefined && sound !== "none" && !(NOTIFICATION_SOUNDS as readonly string[]).includes(sound)) {
    throw badRequest(`Invalid notification sound '${sound}'`);
  }
  if (batching !== undefined && (batching <= 0 || batching > MAX_EMAIL_BATCHING_PERIOD_SECONDS)) {
    throw badRequest(`Invalid email batching period: ${batching} seconds`);
  }
}

/** Verifies the old password and returns the hash of the new one. */
async function checkPasswordChange(ctx: AppContext, user: User, oldPassword: string | undefined, newPassword: string) {
  // Wrong old passwords count against the same per-username limit as failed logins.
  const key = loginRateLimitKey(user);
  const rule = ctx.config.rateLimits.login;
  const state = await ctx.rateLimiter.peek(key, rule);
  if (state.retryAfter > 0) {
    throw badRequest(`You're making too many attempts! Try again in ${Math.ceil(state.retryAfter)} seconds.`);
  }
  if (oldPassword === undefined || !(await verifyPassword(oldPassword, user.password_hash))) {
    await ctx.rateLimiter.hit(key, rule);
    throw badRequest("Wrong password!");
  }
  if (!passwordLengthAllowed(newPassword, ctx.config.dev)) throw badRequest("New password is too weak!");
  return hashPassword(newPassword, ctx.config.fastPasswordHashing);
}

const loginRateLimitKey = (user: User) => `login:${user.delivery_email.toLowerCase()}`;

/** Sets the password hash (and forgets failed logins), with the audit entry; settings and password reset use it. */
export async function doChangePassword(ctx: AppContext, tx: Tx, user: User, passwordHash: string): Promise<void> {
  await userStore.update(tx.q, user.id, { password_hash: passwordHash });
  tx.afterCommit(() => void ctx.rateLimiter.reset(loginRateLimitKey(user)).catch(() => {}));
  await auditLogStore.insert(tx.q, {
    realm_id: user.realm_id,
    acting_user_id: user.id,
    modified_user_id: user.id,
    event_type: "user_password_changed",
  });
}

/**
 * Zulip's do_change_user_setting for each value that differs from the current one: one row
 * update, then per setting an audit entry, the `user_settings` event and the legacy event.
 */
/**
 * PATCH /realm/user_settings_defaults (Zulip's update_realm_user_settings_defaults and
 * do_set_realm_user_default_setting): the settings users created afterwards start with; one
 * realm_user_settings_defaults event per changed setting, to every active user.
 */
export async function doUpdateRealmUserSettingsDefaults(tx: Tx, realm: Realm, actor: User, requested: Partial<UserSettings>): Promise<void> {
  checkSettingValues(requested);
  const before = realmUserSettingsDefaults(realm);
  const changed = Object.entries(requested).filter(([name, value]) => value !== undefined && before[name as keyof UserSettings] !== value);
  if (changed.length === 0) return;
  await realmStore.update(tx.q, realm.id, { user_settings_defaults: serializeUserSettings({ ...before, ...Object.fromEntries(changed) }) });
  const receivers = await userStore.listActiveIds(tx.q, realm.id);
  for (const [property, value] of changed) {
    await auditLogStore.insert(tx.q, {
      realm_id: realm.id,
      acting_user_id: actor.id,
      event_type: "realm_default_user_settings_changed",
      extra_data: { property, old_value: before[property as keyof UserSettings], new_value: value },
    });
    tx.sendEventOnCommit({ type: "realm_user_settings_defaults", op: "update", property, value }, receivers);
  }
}

async function doChangeUserSettings(tx: Tx, user: User, requested: Partial<UserSettings>, timezone: string | undefined, orgUrl: string) {
  const before = userSettings(user);
  const changed = Object.entries(requested).filter(([name, value]) => value !== undefined && before[name as keyof UserSettings] !== value) as Array<
    [keyof UserSettings, UserSettingValue]
  >;
  const changesTimezone = timezone !== undefined && timezone !== user.timezone;
  if (changed.length === 0 && !changesTimezone) return;

  const after = { ...before, ...Object.fromEntries(changed) } as UserSettings;
  const settingsJson = serializeUserSettings(after);
  await userStore.update(tx.q, user.id, { settings: settingsJson, ...(changesTimezone ? { timezone } : {}) });
  const updated: User = { ...user, settings: settingsJson, timezone: changesTimezone ? timezone : user.timezone };

  const all = changesTimezone ? [...changed, ["timezone", timezone] as const] : changed;
  for (const [name, value] of all) {
    const old = name === "timezone" ? user.timezone : before[name];
    await auditLogStore.insert(tx.q, {
      realm_id: user.realm_id,
      acting_user_id: user.id,
      modified_user_id: user.id,
      event_type: "user_setting_changed",
      extra_data: { property: name, old_value: old, new_value: value },
    });
    notifySettingChange(tx, user, name, value);
    if (name === "allow_private_data_export") await notifyExportConsent(tx, updated);
  }
  if (changesTimezone) {
    const person = { email: user.email, user_id: user.id, timezone };
    tx.sendEventOnCommit({ type: "realm_user", op: "update", person }, await userIdsWhoCanAccessUser(tx.q, user));
  }
  if (changed.some(([name]) => name === "email_address_visibility")) {
    await notifyDeliveryEmailVisibility(tx, user, updated);
    await doUpdateDisplayEmail(tx, updated, orgUrl);
  }
}

/**
 * Zulip's do_change_user_setting for email_address_visibility: the API email is the real address
 * only while everyone may see it, else user{id}@{realm host}; everyone is told the new one.
 */
async function doUpdateDisplayEmail(tx: Tx, user: User, orgUrl: string): Promise<void> {
  const email = displayEmail(user, orgUrl);
  if (email === user.email) return;
  await userStore.update(tx.q, user.id, { email });
  tx.sendEventOnCommit({ type: "realm_user", op: "update", person: { user_id: user.id, new_email: email } }, await userIdsWhoCanAccessUser(tx.q, user));
}

function notifySettingChange(tx: Tx, user: User, name: string, value: UserSettingValue): void {
  const languageName = name === "default_language" ? { language_name: LANGUAGES[value as string] } : {};
  tx.sendEventOnCommit({ type: "user_settings", op: "update", property: name, value, ...languageName }, [user.id]);
  if (LEGACY_NOTIFICATION_SETTINGS.has(name)) {
    tx.sendEventOnCommit({ type: "update_global_notifications", user: user.email, notification_name: name, setting: value }, [user.id]);
  }
  if (LEGACY_DISPLAY_SETTINGS.has(name) || name === "timezone") {
    tx.sendEventOnCommit({ type: "update_display_settings", user: user.email, setting_name: name, setting: value, ...languageName }, [user.id]);
  }
}

/** Tells the users who gained or lost sight of `after`'s real email address (send_delivery_email_update_events). */
async function notifyDeliveryEmailVisibility(tx: Tx, before: User, after: User): Promise<void> {
  const viewers = (await userStore.listInRealm(tx.q, before.realm_id)).filter((u) => u.is_active);
  const gained = viewers.filter((v) => !canSeeDeliveryEmail(v, before) && canSeeDeliveryEmail(v, after));
  const lost = viewers.filter((v) => canSeeDeliveryEmail(v, before) && !canSeeDeliveryEmail(v, after));
  if (gained.length > 0) {
    const person = { user_id: after.id, delivery_email: after.delivery_email };
    tx.sendEventOnCommit(
      { type: "realm_user", op: "update", person },
      gained.map((u) => u.id),
    );
  }
  if (lost.length > 0) {
    const person = { user_id: after.id, delivery_email: null };
    tx.sendEventOnCommit(
      { type: "realm_user", op: "update", person },
      lost.map((u) => u.id),
    );
  }
}

// ---- email change: PATCH /settings {email} sends a link to the new address; the link applies it.

const EMAIL_CHANGE = "email_change";
const EMAIL_CHANGE_VALIDITY_SECONDS = 24 * 60 * 60;
const emailSchema = z.email();

const EMAIL_CHANGES_DISABLED = "Email address changes are disabled in this organization.";

/** Zulip's email_changes_disabled: administrators may still change their own address. */
function emailChangesAllowed(realm: Realm, user: User): boolean {
  return !realmSettings(realm).email_changes_disabled || isAdmin(user);
}

/**
 * Zulip's validate_email_change_request: the organization lets the user change it, and it is a
 * valid address no other account of the realm uses.
 */
async function checkEmailChange(tx: Tx, user: User, newEmail: string): Promise<void> {
  const realm = await realmStore.getById(tx.q, user.realm_id);
  if (realm && !emailChangesAllowed(realm, user)) throw badRequest(EMAIL_CHANGES_DISABLED);
  if (!emailSchema.safeParse(newEmail).success) throw badRequest("Invalid address.");
  const existing = await userStore.getByEmail(tx.q, user.realm_id, newEmail);
  if (existing) throw badRequest(existing.is_active ? "Already has an account." : "Account has been deactivated.");
}

async function doStartEmailChange(tx: Tx, user: User, orgUrl: string, newEmail: string): Promise<void> {
  const now = nowSeconds();
  await confirmationStore.expireOpenForUser(tx.q, user.id, EMAIL_CHANGE, now);
  const key = randomString(24);
  await confirmationStore.insert(tx.q, {
    realm_id: user.realm_id,
    user_id: user.id,
    kind: EMAIL_CHANGE,
    confirmation_key: key,
    data: JSON.stringify({ old_email: user.delivery_email, new_email: newEmail }),
    created_at: now,
    expires_at: now + EMAIL_CHANGE_VALIDITY_SECONDS,
  });
  const link = `${orgUrl}/accounts/confirm_new_email/${key}`;
  const host = new URL(orgUrl).host;
  await queueEmail(tx, {
    to: newEmail,
    subject: `Verify your new email address for ${host}`,
    text:
      `Hi ${user.full_name},\n\n` +
      `We received a request to change the email address for your account on ${host} ` +
      `from ${user.delivery_email} to ${newEmail}.\n\n` +
      `To confirm this change, open this link within 24 hours:\n${link}\n\n` +
      `If you did not request this change, you can ignore this email.\n`,
    template: "confirm_new_email",
  });
}

/** Why a confirmation link cannot be used; the page shows a message for each. */
export class ConfirmationLinkError extends Error {
  constructor(
    readonly reason: "invalid" | "expired" | "unavailable",
    message: string,
  ) {
    super(message);
  }
}

/** Applies the email change a confirmation link stands for. Returns the old and new addresses. */
/** confirmations.data of an email change. */
const emailChangeData = z.object({ old_email: z.string(), new_email: z.string() });

/**
 * `servedAtHost`: whether an organization is the one of the host the link was opened on; a link
 * of another organization's account does not exist there.
 */
export async function checkConfirmEmailChange(tx: Tx, key: string, servedAtHost: (realm: Realm) => boolean) {
  const now = nowSeconds();
  const confirmation = await confirmationStore.getByKey(tx.q, EMAIL_CHANGE, key);
  const missing = () => new ConfirmationLinkError("invalid", "This confirmation link does not exist. Check that you copied the whole link.");
  if (!confirmation || confirmation.user_id === null) throw missing();
  const expired = new ConfirmationLinkError("expired", "This confirmation link has expired or has already been used.");
  if (confirmation.used_at !== null || confirmation.expires_at <= now) throw expired;
  const { old_email: oldEmail, new_email: newEmail } = parseJsonColumn(emailChangeData, confirmation.data, "confirmations.data (email change)");
  const user = await userStore.getById(tx.q, confirmation.user_id);
  const realm = user && (await realmStore.getById(tx.q, user.realm_id));
  if (realm && !servedAtHost(realm)) throw missing();
  if (!user || !realm || !user.is_active || realm.deactivated) {
    throw new ConfirmationLinkError("unavailable", "This account is deactivated.");
  }
  // Zulip checks again when the link is opened: the organization may have turned changes off since.
  if (!emailChangesAllowed(realm, user)) throw new ConfirmationLinkError("unavailable", EMAIL_CHANGES_DISABLED);
  if (user.delivery_email !== oldEmail) throw expired;
  const existing = await userStore.getByEmail(tx.q, user.realm_id, newEmail);
  if (existing) throw new ConfirmationLinkError("unavailable", `${newEmail} is already used by another account.`);
  if (!(await confirmationStore.markUsed(tx.q, confirmation.id, now))) throw expired;

  await doChangeUserDeliveryEmail(tx, user, newEmail, user);
  await queueEmail(tx, {
    to: oldEmail,
    subject: `Email address changed for ${realm.name}`,
    text:
      `Hi ${user.full_name},\n\nThe email address for your account in ${realm.name} was changed to ${newEmail}.\n\n` +
      `If you did not make this change, contact the administrators of ${realm.name} immediately: ` +
      `someone else may have access to your account.\n`,
    template: "notify_change_in_email",
  });
  return { oldEmail, newEmail };
}
