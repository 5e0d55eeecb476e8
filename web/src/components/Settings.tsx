import type { ApiKeyResponse } from "../../../src/contract/responses.js";
import { EMPTY_TOPIC_DISPLAY_NAME, VisibilityPolicy } from "../../../src/contract/constants.js";
import { useState } from "preact/hooks";
import { api, myUserId } from "../api.js";
import { openEmojiPicker } from "../emojiPicker.js";
import { type Emoji } from "../emojiSearch.js";
import { EmojiGlyph } from "./EmojiGlyph.js";
import { alertWords, mutedUsers, ownEmail, topicPolicies, userStatuses } from "../personal.js";
import { settings, subscriptions, userName, users } from "../state.js";
import { attempt, CheckField, Group, SelectField, SettingsFrame } from "./forms.js";
import { Bots } from "./Bots.js";
import { AvatarUpload } from "./ImageUpload.js";
import { Sessions } from "./Sessions.js";

/**
 * Personal settings, at Zulip's hashes (#settings/<section>): a chunk of its own, loaded the first
 * time settings open. Every control saves at once through Zulip's API (PATCH /json/settings and
 * friends); what the app shows comes back through the events (user_settings, realm_user, ...).
 */
export const SECTIONS: Array<[string, string]> = [
  ["profile", "Profile"],
  ["account-and-privacy", "Account & privacy"],
  ["preferences", "Preferences"],
  ["notifications", "Notifications"],
  ["topics", "Topics"],
  ["muted-users", "Muted users"],
  ["alert-words", "Alert words"],
  ["your-bots", "Bots"],
];

const saveSetting = (name: string, value: string | number | boolean) => attempt(() => api.patch("/settings", { [name]: value }));

function Check({ name, label }: { name: string; label: string }) {
  return <CheckField name={name} label={label} checked={!!settings.value[name]} onSave={(value) => saveSetting(name, value)} />;
}

function Choice({ name, label, options }: { name: string; label: string; options: Array<[string | number, string]> }) {
  return <SelectField name={name} label={label} value={settings.value[name]} options={options} onSave={(value) => saveSetting(name, value)} />;
}

let zones: string[] | null = null;
function timeZones(): string[] {
  zones ??= (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.("timeZone") ?? ["UTC"];
  return zones;
}

function Profile() {
  const me = users.value.get(myUserId);
  const [name, setName] = useState(me?.full_name ?? "");
  const current = userStatuses.value.get(myUserId);
  const [statusText, setStatusText] = useState(current?.status_text ?? "");
  const [emoji, setEmoji] = useState<{ name: string; code: string; type: string } | null>(
    current?.emoji_name ? { name: current.emoji_name, code: current.emoji_code ?? "", type: current.reaction_type ?? "unicode_emoji" } : null,
  );
  const saveStatus = (text: string, e: typeof emoji) =>
    attempt(() =>
      api.post("/users/me/status", {
        status_text: text,
        emoji_name: e?.name ?? "",
        emoji_code: e?.code ?? "",
        reaction_type: e?.type ?? "",
      }),
    );
  return (
    <>
      <Group title="Your profile">
        <div class="profile-avatar">
          <AvatarUpload />
        </div>
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            void attempt(() => api.patch("/settings", { full_name: name }));
          }}
        >
          <label class="field">
            <span>Name</span>
            <input name="full_name" value={name} maxLength={60} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <button type="submit">Save name</button>
        </form>
        <label class="field">
          <span>Time zone</span>
          <select name="timezone" value={me?.timezone ?? ""} onChange={(e) => void attempt(() => api.patch("/settings", { timezone: e.currentTarget.value }))}>
            <option value="">Not set</option>
            {(me?.timezone && !timeZones().includes(me.timezone) ? [me.timezone, ...timeZones()] : timeZones()).map((z) => (
              <option key={z} value={z}>
                {z}
              </option>
            ))}
          </select>
        </label>
      </Group>
      <Group title="Status">
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            void saveStatus(statusText, emoji);
          }}
        >
          <button
            type="button"
            class="status-emoji-button"
            aria-label="Status emoji"
            onClick={(e) => openEmojiPicker(e.currentTarget, (picked: Emoji) => setEmoji({ name: picked.name, code: picked.code, type: picked.type }))}
          >
            {emoji ? <EmojiGlyph {...emoji} /> : "☺"}
          </button>
          <input name="status_text" placeholder="What are you up to?" maxLength={60} value={statusText} onInput={(e) => setStatusText(e.currentTarget.value)} />
          <button type="submit">Save status</button>
          <button
            type="button"
            onClick={() => {
              setStatusText("");
              setEmoji(null);
              void saveStatus("", null);
            }}
          >
            Clear
          </button>
        </form>
      </Group>
    </>
  );
}

function Account() {
  const [oldPassword, setOld] = useState("");
  const [newPassword, setNew] = useState("");
  const [keyPassword, setKeyPassword] = useState("");
  const [apiKey, setApiKey] = useState<string | null>(null);
  return (
    <>
      <Group title="Account">
        <p>
          Email: <strong class="own-email">{ownEmail.value}</strong>
        </p>
        <form
          class="password"
          onSubmit={(e) => {
            e.preventDefault();
            void (async () => {
              if (await attempt(() => api.once.patch("/settings", { old_password: oldPassword, new_password: newPassword }), "Password changed")) {
                setOld("");
                setNew("");
              }
            })();
          }}
        >
          <label class="field">
            <span>Current password</span>
            <input type="password" name="old_password" autocomplete="current-password" value={oldPassword} onInput={(e) => setOld(e.currentTarget.value)} />
          </label>
          <label class="field">
            <span>New password</span>
            <input type="password" name="new_password" autocomplete="new-password" value={newPassword} onInput={(e) => setNew(e.currentTarget.value)} />
          </label>
          <button type="submit" disabled={!oldPassword || !newPassword}>
            Change password
          </button>
        </form>
      </Group>
      <Group title="API key">
        {apiKey === null ? (
          <form
            class="row"
            onSubmit={(e) => {
              e.preventDefault();
              void attempt(async () => {
                const result = await api.once.post<ApiKeyResponse>("/fetch_api_key", { username: ownEmail.value, password: keyPassword });
                setApiKey(result.api_key);
                setKeyPassword("");
              }, "");
            }}
          >
            <label class="field">
              <span>Your password</span>
              <input
                type="password"
                name="api_key_password"
                autocomplete="current-password"
                value={keyPassword}
                onInput={(e) => setKeyPassword(e.currentTarget.value)}
              />
            </label>
            <button type="submit">Show API key</button>
          </form>
        ) : (
          <div class="row">
            <code class="api-key">{apiKey}</code>
            <button
              type="button"
              onClick={() =>
                void attempt(async () => {
                  const result = await api.once.post<ApiKeyResponse>("/users/me/api_key/regenerate");
                  setApiKey(result.api_key);
                }, "New API key generated")
              }
            >
              Generate new API key
            </button>
          </div>
        )}
      </Group>
      <Group title="Two-factor authentication">
        <p>
          A code from an authenticator app after your password.{" "}
          <a class="two-factor" href="/account/two_factor/">
            Set up or manage two-factor authentication
          </a>
        </p>
      </Group>
      <Sessions />
      <Group title="Privacy">
        <Check name="send_private_typing_notifications" label="Let recipients see when I'm typing direct messages" />
        <Check name="send_stream_typing_notifications" label="Let recipients see when I'm typing messages in channels" />
        <Check name="send_read_receipts" label="Let others see when I've read messages" />
        <Check name="presence_enabled" label="Display my availability to other users" />
      </Group>
    </>
  );
}

function Preferences() {
  const emojisets: Array<[string, string]> = [
    ["google", "Google"],
    ["twitter", "Twitter"],
    ["google-blob", "Google blobs"],
    ["text", "Plain text"],
  ];
  return (
    <>
      <Group title="Theme">
        <Choice
          name="color_scheme"
          label="Color scheme"
          options={[
            [1, "Automatic (follows system settings)"],
            [3, "Light"],
            [2, "Dark"],
          ]}
        />
        <Choice name="emojiset" label="Emoji theme" options={emojisets} />
      </Group>
      <Group title="Time">
        <Choice
          name="twenty_four_hour_time"
          label="Time format"
          options={[
            ["false", "12-hour clock (5:00 PM)"],
            ["true", "24-hour clock (17:00)"],
          ]}
        />
      </Group>
      <Group title="Navigation">
        <Choice
          name="web_home_view"
          label="Home view"
          options={[
            ["inbox", "Inbox"],
            ["recent_topics", "Recent conversations"],
            ["all_messages", "Combined feed"],
          ]}
        />
        <Check name="enter_sends" label="Enter sends the message (Ctrl+Enter for a new line otherwise)" />
        <Check name="starred_message_counts" label="Show counts for starred messages" />
      </Group>
    </>
  );
}

const NOTIFICATION_TABLE: Array<[string, string[]]> = [
  [
    "Channels",
    ["enable_stream_desktop_notifications", "enable_stream_audible_notifications", "enable_stream_push_notifications", "enable_stream_email_notifications"],
  ],
  [
    "Followed topics",
    [
      "enable_followed_topic_desktop_notifications",
      "enable_followed_topic_audible_notifications",
      "enable_followed_topic_push_notifications",
      "enable_followed_topic_email_notifications",
    ],
  ],
  ["DMs, mentions, and alerts", ["enable_desktop_notifications", "enable_sounds", "enable_offline_push_notifications", "enable_offline_email_notifications"]],
];

function Notifications() {
  return (
    <>
      <Group title="Notification triggers">
        <div class="table-scroll">
          <table class="notification-table">
            <thead>
              <tr>
                <th />
                <th>Desktop</th>
                <th>Audible</th>
                <th>Mobile</th>
                <th>Email</th>
              </tr>
            </thead>
            <tbody>
              {NOTIFICATION_TABLE.map(([row, names]) => (
                <tr key={row}>
                  <th scope="row">{row}</th>
                  {names.map((name) => (
                    <td key={name}>
                      <input
                        type="checkbox"
                        name={name}
                        aria-label={`${row}: ${name}`}
                        checked={!!settings.value[name]}
                        onChange={(e) => void saveSetting(name, e.currentTarget.checked)}
                      />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <Check name="wildcard_mentions_notify" label="Notify for @all, @everyone and @topic mentions" />
        <Check name="enable_followed_topic_wildcard_mentions_notify" label="Notify for wildcard mentions in followed topics" />
        <Check name="pm_content_in_desktop_notifications" label="Include the content of direct messages in desktop notifications" />
      </Group>
      <Group title="Topics">
        <Choice
          name="automatically_follow_topics_policy"
          label="Automatically follow topics"
          options={[
            [1, "Topics I participate in"],
            [2, "Topics I send a message to"],
            [3, "Topics I start"],
            [4, "Never"],
          ]}
        />
        <Check name="automatically_follow_topics_where_mentioned" label="Automatically follow topics where I'm mentioned" />
      </Group>
      <Group title="Email">
        <Check name="enable_digest_emails" label="Send digest emails when I'm away" />
        <Check name="enable_login_emails" label="Send email notifications for new logins to my account" />
        <Check name="message_content_in_email_notifications" label="Include message content in message notification emails" />
        <Check name="enable_marketing_emails" label="Send me Zulip's low-traffic newsletter" />
      </Group>
    </>
  );
}

const POLICIES: Array<[number, string]> = [
  [VisibilityPolicy.MUTED, "Muted"],
  [VisibilityPolicy.UNMUTED, "Unmuted"],
  [VisibilityPolicy.FOLLOWED, "Followed"],
  [VisibilityPolicy.INHERIT, "Default for channel"],
];

function Topics() {
  const rows = [...topicPolicies.value].sort((a, b) => b.last_updated - a.last_updated);
  return (
    <Group title="Topics with a setting">
      {rows.length === 0 && <p class="status">You have not muted, unmuted or followed any topics.</p>}
      <table class="topic-policies">
        <tbody>
          {rows.map((t) => (
            <tr key={`${t.stream_id}:${t.topic_name}`} data-topic={t.topic_name}>
              <td>#{subscriptions.value.get(t.stream_id)?.name ?? t.stream_id}</td>
              <td class="topic">{t.topic_name || EMPTY_TOPIC_DISPLAY_NAME}</td>
              <td>
                <select
                  aria-label={`Visibility of ${t.topic_name}`}
                  value={String(t.visibility_policy)}
                  onChange={(e) =>
                    void attempt(() =>
                      api.post("/user_topics", { stream_id: t.stream_id, topic: t.topic_name, visibility_policy: Number(e.currentTarget.value) }),
                    )
                  }
                >
                  {POLICIES.map(([v, text]) => (
                    <option key={v} value={String(v)}>
                      {text}
                    </option>
                  ))}
                </select>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Group>
  );
}

function MutedUsers() {
  return (
    <Group title="Muted users">
      {mutedUsers.value.length === 0 && <p class="status">You have not muted anyone.</p>}
      <ul class="muted-users">
        {mutedUsers.value.map((id) => (
          <li key={id} data-user-id={id}>
            <span>{userName(id)}</span>
            <button type="button" onClick={() => void attempt(() => api.del(`/users/me/muted_users/${id}`), "Unmuted")}>
              Unmute
            </button>
          </li>
        ))}
      </ul>
    </Group>
  );
}

function AlertWords() {
  const [word, setWord] = useState("");
  return (
    <Group title="Alert words">
      <p class="hint">Messages that contain an alert word notify you as a mention does.</p>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void (async () => {
            const text = word.trim();
            if (text && (await attempt(() => api.post("/users/me/alert_words", { alert_words: [text] }), "Added"))) setWord("");
          })();
        }}
      >
        <input name="alert_word" placeholder="Alert word" aria-label="New alert word" value={word} onInput={(e) => setWord(e.currentTarget.value)} />
        <button type="submit">Add alert word</button>
      </form>
      <ul class="alert-words">
        {alertWords.value.map((w) => (
          <li key={w}>
            <span class="word">{w}</span>
            <button
              type="button"
              aria-label={`Delete ${w}`}
              onClick={() => void attempt(() => api.del("/users/me/alert_words", { alert_words: [w] }), "Deleted")}
            >
              Delete
            </button>
          </li>
        ))}
      </ul>
    </Group>
  );
}

const VIEWS: Record<string, () => preact.JSX.Element> = {
  profile: Profile,
  "account-and-privacy": Account,
  preferences: Preferences,
  notifications: Notifications,
  topics: Topics,
  "muted-users": MutedUsers,
  "alert-words": AlertWords,
  "your-bots": () => <Bots />,
};

/** The settings overlay; `section` is the part of the hash after "settings/". */
export function Settings({ section }: { section: string }) {
  const current = VIEWS[section] ? section : "profile";
  const View = VIEWS[current] ?? Profile;
  return (
    <SettingsFrame
      title="Settings"
      closeLabel="Close settings"
      navLabel="Settings sections"
      sections={SECTIONS}
      hashPrefix="settings"
      current={current}
      links={[["#groups/your", "User groups"]]}
    >
      <View key={current} />
    </SettingsFrame>
  );
}
