/**
 * The parameters of the web app's POST /json/register. The server embeds the answer to the same
 * request in the page (src/http/webAppState.ts, WEB_APP_REGISTER_PARAMS: kept equal by
 * test/web/registerParams.test.ts); the app sends them itself when registering again.
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
  },
};
