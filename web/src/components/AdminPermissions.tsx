import { useState } from "preact/hooks";
import { api } from "../api.js";
import { realm } from "../state.js";
import { AuthenticationMethods } from "./AdminAuthMethods.js";
import { attempt, CheckField, Group, SelectField } from "./forms.js";
import { GroupSettingPicker, type GroupSettingValue } from "./GroupSettingPicker.js";

/**
 * The organization's permissions (#organization/organization-permissions) and general settings
 * (#organization/organization-settings), as Zulip's organization settings show them: group-based
 * permissions with a group picker, time limits, joining rules, and the defaults for new users.
 * Values come from /register's realm_* keys and realm events.
 */

/** Zulip's group-based realm permissions, by topic; those the server does not send are left out. */
const GROUP_PERMISSIONS: Array<[string, Array<[string, string, boolean?]>]> = [
  [
    "Invitations",
    [
      ["can_invite_users_group", "Who can send email invitations to new users"],
      ["create_multiuse_invite_group", "Who can create reusable invitation links"],
    ],
  ],
  [
    "Channel permissions",
    [
      ["can_create_public_channel_group", "Who can create public channels"],
      ["can_create_private_channel_group", "Who can create private channels"],
      ["can_create_web_public_channel_group", "Who can create web-public channels", true],
      ["can_add_subscribers_group", "Who can subscribe others to channels"],
    ],
  ],
  [
    "Group permissions",
    [
      ["can_create_groups", "Who can create user groups"],
      ["can_manage_all_groups", "Who can administer all user groups"],
    ],
  ],
  [
    "Direct message permissions",
    [
      ["direct_message_permission_group", "Who can authorize a direct message conversation"],
      ["direct_message_initiator_group", "Who can start a direct message conversation"],
    ],
  ],
  [
    "Message and topic permissions",
    [
      ["can_mention_many_users_group", "Who can notify a large number of users with a wildcard mention"],
      ["can_move_messages_between_topics_group", "Who can move messages to another topic"],
      ["can_move_messages_between_channels_group", "Who can move messages to another channel"],
      ["can_resolve_topics_group", "Who can resolve topics"],
      ["can_delete_own_message_group", "Who can delete their own messages"],
      ["can_delete_any_message_group", "Who can delete any message"],
      ["can_summarize_topics_group", "Who can use AI summaries"],
    ],
  ],
  [
    "Other permissions",
    [
      ["can_access_all_users_group", "Who can view all other users in the organization", true],
      ["can_add_custom_emoji_group", "Who can add custom emoji"],
      ["can_create_bots_group", "Who can create any bot"],
      ["can_create_write_only_bots_group", "Who can create bots that send messages into Zulip"],
    ],
  ],
];

const saveRealm = (name: string, value: unknown) => attempt(() => api.patch("/realm", { [name]: value as string }));

function RealmCheck({ name, label }: { name: string; label: string }) {
  return <CheckField name={name} label={label} checked={!!realm.value[`realm_${name}`]} onSave={(value) => saveRealm(name, value)} />;
}

/** A time limit in minutes; empty means no limit (Zulip's "unlimited"). */
function TimeLimit({ name, label }: { name: string; label: string }) {
  const seconds = realm.value[`realm_${name}`] as number | null | undefined;
  if (seconds === undefined) return null;
  return (
    <label class="field">
      <span>{label} (minutes; empty: any time)</span>
      <input
        type="number"
        min={0}
        name={name}
        value={seconds === null ? "" : Math.round(seconds / 60)}
        onChange={(e) => {
          const raw = e.currentTarget.value.trim();
          void saveRealm(name, raw === "" ? "unlimited" : Math.round(Number(raw) * 60));
        }}
      />
    </label>
  );
}

export function Permissions() {
  const waiting = (realm.value.realm_waiting_period_threshold as number | undefined) ?? 0;
  const defaults = (realm.value.realm_user_settings_defaults ?? {}) as Record<string, string | number | boolean | undefined>;
  return (
    <>
      <Group title="Joining the organization">
        <RealmCheck name="invite_required" label="Invitation required for joining the organization" />
        <RealmCheck name="emails_restricted_to_domains" label="Restrict email addresses of new users to the allowed domains" />
        <label class="field">
          <span>Waiting period before new members turn into full members (days)</span>
          <input
            type="number"
            min={0}
            name="waiting_period_threshold"
            value={waiting}
            onChange={(e) => void saveRealm("waiting_period_threshold", Number(e.currentTarget.value))}
          />
        </label>
        {defaults.email_address_visibility !== undefined && (
          <SelectField
            name="email_address_visibility"
            label="Who can see new users' email addresses (default)"
            value={defaults.email_address_visibility}
            options={[
              [1, "Admins, moderators, members and guests"],
              [2, "Admins, moderators and members"],
              [5, "Admins and moderators"],
              [3, "Admins only"],
              [4, "Nobody"],
            ]}
            onSave={(value) => attempt(() => api.patch("/realm/user_settings_defaults", { email_address_visibility: value }))}
          />
        )}
      </Group>
      {GROUP_PERMISSIONS.map(([title, settings]) => {
        const present = settings.filter(([name]) => realm.value[`realm_${name}`] !== undefined);
        if (present.length === 0) return null;
        return (
          <Group key={title} title={title}>
            {present.map(([name, label, systemOnly]) => (
              <GroupSettingPicker
                key={name}
                name={name}
                label={label}
                systemOnly={systemOnly}
                value={realm.value[`realm_${name}`] as GroupSettingValue}
                save={(change) => saveRealm(name, change)}
              />
            ))}
            {title === "Message and topic permissions" && (
              <>
                <RealmCheck name="allow_message_editing" label="Allow message editing" />
                <TimeLimit name="message_content_edit_limit_seconds" label="Time limit for editing messages" />
                <TimeLimit name="message_content_delete_limit_seconds" label="Time limit for deleting messages" />
                <TimeLimit name="move_messages_within_stream_limit_seconds" label="Time limit for moving messages between topics" />
                <TimeLimit name="move_messages_between_streams_limit_seconds" label="Time limit for moving messages between channels" />
                <RealmCheck name="mandatory_topics" label="Require topics in channel messages" />
                <RealmCheck name="enable_read_receipts" label="Enable read receipts" />
              </>
            )}
          </Group>
        );
      })}
      <Group title="Users">
        <RealmCheck name="name_changes_disabled" label="Prevent users from changing their name" />
        <RealmCheck name="email_changes_disabled" label="Prevent users from changing their email address" />
        <RealmCheck name="avatar_changes_disabled" label="Prevent users from changing their avatar" />
      </Group>
    </>
  );
}

const LANGUAGES: Array<[string, string]> = [
  ["en", "English"],
  ["de", "Deutsch"],
  ["es", "Español"],
  ["fr", "Français"],
  ["it", "Italiano"],
  ["nl", "Nederlands"],
  ["pl", "Polski"],
  ["pt", "Português"],
  ["ru", "Русский"],
  ["ja", "日本語"],
  ["zh-hans", "简体中文"],
];

const saveDefault = (name: string, value: unknown) => attempt(() => api.patch("/realm/user_settings_defaults", { [name]: value as string }));

function DefaultCheck({ name, label }: { name: string; label: string }) {
  const defaults = (realm.value.realm_user_settings_defaults ?? {}) as Record<string, string | number | boolean | undefined>;
  return <CheckField name={`default_${name}`} label={label} checked={!!defaults[name]} onSave={(value) => saveDefault(name, value)} />;
}

function DefaultChoice({ name, label, options }: { name: string; label: string; options: Array<[string | number, string]> }) {
  const defaults = (realm.value.realm_user_settings_defaults ?? {}) as Record<string, string | number | boolean | undefined>;
  return <SelectField name={`default_${name}`} label={label} value={defaults[name]} options={options} onSave={(value) => saveDefault(name, value)} />;
}

export function OrganizationSettings() {
  const language = (realm.value.realm_default_language as string | undefined) ?? "en";
  const [codeLanguage, setCodeLanguage] = useState((realm.value.realm_default_code_block_language as string | undefined) ?? "");
  const languages = LANGUAGES.some(([code]) => code === language) ? LANGUAGES : [[language, language] as [string, string], ...LANGUAGES];
  return (
    <>
      <AuthenticationMethods />
      <Group title="Language">
        <SelectField
          name="default_language"
          label="Language for automated messages and invitation emails"
          value={language}
          options={languages}
          onSave={(v) => saveRealm("default_language", v)}
        />
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            void saveRealm("default_code_block_language", codeLanguage.trim());
          }}
        >
          <label class="field">
            <span>Default language for code blocks</span>
            <input name="default_code_block_language" value={codeLanguage} placeholder="e.g. python" onInput={(e) => setCodeLanguage(e.currentTarget.value)} />
          </label>
          <button type="submit">Save</button>
        </form>
      </Group>
      <Group title="Default settings for new users">
        <DefaultChoice
          name="color_scheme"
          label="Color scheme"
          options={[
            [1, "Automatic (follows system settings)"],
            [3, "Light"],
            [2, "Dark"],
          ]}
        />
        <DefaultChoice
          name="web_home_view"
          label="Home view"
          options={[
            ["inbox", "Inbox"],
            ["recent_topics", "Recent conversations"],
            ["all_messages", "Combined feed"],
          ]}
        />
        <DefaultChoice
          name="twenty_four_hour_time"
          label="Time format"
          options={[
            ["false", "12-hour clock (5:00 PM)"],
            ["true", "24-hour clock (17:00)"],
          ]}
        />
        <DefaultCheck name="enter_sends" label="Enter sends the message" />
        <DefaultCheck name="send_read_receipts" label="Let others see when they have read messages" />
        <DefaultCheck name="enable_stream_desktop_notifications" label="Desktop notifications for channel messages" />
        <DefaultCheck name="enable_digest_emails" label="Send digest emails when away" />
      </Group>
    </>
  );
}
