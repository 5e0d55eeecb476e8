import { checkUpdateSettings, doUpdateRealmUserSettingsDefaults } from "../actions/settings.js";
import { transaction } from "../appContext.js";
import { requireAdministrator } from "../lib/access.js";
import { endpoint } from "../http/endpoint.js";
import { badRequest } from "../lib/errors.js";
import { p, type Param, type ParamSpec } from "../http/params.js";
import { requestSessionId } from "../http/webSession.js";
import {
  isKnownTimezone,
  REALM_USER_DEFAULT_SETTING_NAMES,
  USER_SETTING_NAMES,
  USER_SETTING_RULES,
  type SettingRule,
  type UserSettings,
} from "../models/userSettings.js";

function settingParam(rule: SettingRule): Param<unknown> {
  switch (rule.kind) {
    case "bool":
      return p.bool().optional();
    case "int":
      return (rule.values ? p.intEnum(rule.values) : p.int()).optional();
    case "string":
      return (rule.values ? p.enum(rule.values) : p.string({ trim: false })).optional();
  }
}

const settingParams: ParamSpec = Object.fromEntries(USER_SETTING_NAMES.map((name) => [name, settingParam(USER_SETTING_RULES[name])]));

/**
 * PATCH /settings, and its deprecated aliases PATCH /settings/display and
 * PATCH /settings/notifications (Zulip's json_change_settings).
 */
export const updateSettings = endpoint({
  auth: "user",
  params: {
    full_name: p.string({ trim: false }).optional(),
    email: p.string({ trim: false }).optional(),
    old_password: p.string({ trim: false }).optional(),
    new_password: p.string({ trim: false }).optional(),
    timezone: p
      .string({ trim: false })
      .refine((value, name) => {
        if (!isKnownTimezone(value)) throw badRequest(`${name} is not a recognized time zone`);
        return value;
      })
      .optional(),
    ...settingParams,
  },
  handler: async ({ ctx, user, realm, params, raw }) => {
    const { full_name, email, old_password, new_password, timezone, ...rest } = params;
    const settings = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as Partial<UserSettings>;
    const sessionId = requestSessionId(raw.request);
    await checkUpdateSettings(ctx, user, realm, { full_name, email, old_password, new_password, timezone, settings, sessionId });
  },
});

/** PATCH /realm/user_settings_defaults */
export const updateRealmUserSettingsDefaults = endpoint({
  auth: "user",
  params: Object.fromEntries(REALM_USER_DEFAULT_SETTING_NAMES.map((name) => [name, settingParam(USER_SETTING_RULES[name])])),
  handler: async ({ ctx, user, realm, params }) => {
    requireAdministrator(user);
    const settings = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)) as Partial<UserSettings>;
    await transaction(ctx, (tx) => doUpdateRealmUserSettingsDefaults(tx, realm, user, settings));
  },
});
