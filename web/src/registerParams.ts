/**
 * The parameters of the web app's POST /json/register. The server embeds the answer to the same
 * request in the page (src/http/webAppState.ts imports these); the app sends them itself when
 * registering again. Plain data, no imports: the server's bundle includes this file.
 */
export const REGISTER_PARAMS = {
  apply_markdown: true,
  client_gravatar: true,
  include_subscribers: false,
  slim_presence: true,
  client_capabilities: {
    notification_settings_null: true,
    bulk_message_deletion: true,
    user_avatar_url_field_optional: true,
    user_settings_object: true,
    empty_topic_name: true,
    simplified_presence_events: true,
    // Channel typing notifications ("X is typing…" under a topic), as Zulip's web app asks for them.
    stream_typing_notifications: true,
  },
};
