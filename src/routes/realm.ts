import * as z from "zod";
import { checkUpdateRealm, parseTimeLimit } from "../actions/realmSettings.js";
import { transaction } from "../appContext.js";
import { endpoint } from "../http/endpoint.js";
import { badRequest } from "../lib/errors.js";
import { p, type Param, type ParamSpec } from "../http/params.js";
import { groupSettingChangeSchema } from "../lib/groupSettings.js";
import { REALM_GROUP_PERMISSION_NAMES, type RealmGroupPermissionName } from "../models/realmSettings.js";
import { MAX_REALM_NAME_LENGTH, MAX_REALM_DESCRIPTION_LENGTH } from "../models/limits.js";

/** Json[int | "unlimited"]: a time limit in seconds. */
const timeLimitParam = () => p.textOrJson().refine((value, name) => parseTimeLimit(name, value));

const bool = () => p.bool().optional();
const BOOLEAN_SETTINGS = [
  "allow_message_editing",
  "avatar_changes_disabled",
  "digest_emails_enabled",
  "disallow_disposable_email_addresses",
  "email_changes_disabled",
  "emails_restricted_to_domains",
  "enable_guest_user_dm_warning",
  "enable_guest_user_indicator",
  "enable_read_receipts",
  "enable_spectator_access",
  "inline_image_preview",
  "inline_url_embed_preview",
  "invite_required",
  "mandatory_topics",
  "message_content_allowed_in_email_notifications",
  "name_changes_disabled",
  "require_unique_names",
  "send_welcome_emails",
  "want_advertise_in_communities_directory",
] as const;

/** Zulip's Realm.ORG_TYPES ids. */
const ORG_TYPES = [0, 10, 20, 30, 35, 40, 50, 60, 70, 80, 90, 100] as const;

const groupParams = Object.fromEntries(REALM_GROUP_PERMISSION_NAMES.map((name) => [name, p.json(groupSettingChangeSchema).optional()])) as Record<
  RealmGroupPermissionName,
  Param<z.output<typeof groupSettingChangeSchema> | undefined>
>;

const params = {
  name: p.string({ maxLength: MAX_REALM_NAME_LENGTH, nonEmpty: true }).optional(),
  description: p.string({ maxLength: MAX_REALM_DESCRIPTION_LENGTH }).optional(),
  message_retention_days: p.textOrJson().optional(),
  ...(Object.fromEntries(BOOLEAN_SETTINGS.map((name) => [name, bool()])) as Record<(typeof BOOLEAN_SETTINGS)[number], Param<boolean | undefined>>),
  default_language: p
    .string()
    .refine((v) => {
      if (!/^[a-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/.test(v)) throw badRequest(`Invalid language '${v}'`);
      return v;
    })
    .optional(),
  default_code_block_language: p.string({ maxLength: 100 }).optional(),
  digest_weekday: p.intEnum([0, 1, 2, 3, 4, 5, 6]).optional(),
  giphy_rating: p
    .int()
    .refine((v) => {
      if (![0, 1, 2, 3, 4, 5].includes(v)) throw badRequest(`Invalid giphy_rating ${v}`);
      return v;
    })
    .optional(),
  video_chat_provider: p
    .int()
    .refine((v) => {
      if (![0, 1].includes(v)) throw badRequest(`Invalid video_chat_provider ${v}`);
      return v;
    })
    .optional(),
  jitsi_server_url: p
    .textOrJson()
    .refine((v) => {
      if (v === "default") return null;
      if (typeof v === "string" && v.length <= 200 && /^https?:\/\/[^\s/$.?#][^\s]*$/i.test(v)) return v;
      throw badRequest("jitsi_server_url is not an allowed_type");
    })
    .optional(),
  waiting_period_threshold: p.int({ min: 0 }).optional(),
  org_type: p.intEnum(ORG_TYPES).optional(),
  message_content_delete_limit_seconds: timeLimitParam().optional(),
  message_content_edit_limit_seconds: timeLimitParam().optional(),
  move_messages_within_stream_limit_seconds: timeLimitParam().optional(),
  move_messages_between_streams_limit_seconds: timeLimitParam().optional(),
  new_stream_announcements_stream_id: p.int().optional(),
  signup_announcements_stream_id: p.int().optional(),
  zulip_update_announcements_stream_id: p.int().optional(),
  moderation_request_channel_id: p.int().optional(),
  /** Json[dict[str, bool]]: sign-in methods by Zulip's name (owners only). */
  authentication_methods: p.json(z.record(z.string(), z.boolean())).optional(),
  ...groupParams,
} satisfies ParamSpec;

/** PATCH /realm: organization settings (administrators; some need an owner). */
export const updateRealm = endpoint({
  auth: "user",
  params,
  handler: async ({ ctx, user, realm, params: values }) => {
    const { name, description, message_retention_days, authentication_methods, ...rest } = values;
    const settings: Record<string, unknown> = {};
    const groupSettings: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(rest)) {
      if (value === undefined) continue;
      if ((REALM_GROUP_PERMISSION_NAMES as string[]).includes(key)) groupSettings[key] = value;
      else settings[key] = value;
    }
    return transaction(ctx, (tx) =>
      checkUpdateRealm(tx, user, realm, {
        name,
        description,
        message_retention_days,
        settings,
        groupSettings,
        ...(authentication_methods !== undefined ? { authentication_methods: { value: authentication_methods, config: ctx.config } } : {}),
      }),
    );
  },
});
