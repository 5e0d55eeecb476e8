import * as auth from "../routes/auth.js";
import * as avatars from "../routes/avatars.js";
import * as customProfileFields from "../routes/customProfileFields.js";
import * as events from "../routes/events.js";
import * as invitations from "../routes/invitations.js";
import * as messageFlags from "../routes/messageFlags.js";
import * as messageEdit from "../routes/messageEdit.js";
import * as messageRender from "../routes/messageRender.js";
import * as messages from "../routes/messages.js";
import * as alertWords from "../routes/alertWords.js";
import * as botStorage from "../routes/botStorage.js";
import * as drafts from "../routes/drafts.js";
import * as messageReports from "../routes/messageReports.js";
import * as mutedUsers from "../routes/mutedUsers.js";
import * as reactions from "../routes/reactions.js";
import * as readReceipts from "../routes/readReceipts.js";
import * as submessages from "../routes/submessages.js";
import * as register from "../routes/register.js";
import * as scheduledMessages from "../routes/scheduledMessages.js";
import * as bots from "../routes/bots.js";
import * as pushDevices from "../routes/pushDevices.js";
import * as realmSettings from "../routes/realm.js";
import * as realmEmoji from "../routes/realmEmoji.js";
import * as uploads from "../routes/uploads.js";
import * as serverSettings from "../routes/serverSettings.js";
import * as sessions from "../routes/sessions.js";
import * as settings from "../routes/settings.js";
import * as streams from "../routes/streams.js";
import * as subscriptions from "../routes/subscriptions.js";
import * as presence from "../routes/presence.js";
import * as realmLinkifiers from "../routes/realmLinkifiers.js";
import * as realmPlaygrounds from "../routes/realmPlaygrounds.js";
import * as realmExport from "../routes/realmExport.js";
import * as typing from "../routes/typing.js";
import * as videoCalls from "../routes/videoCalls.js";
import * as topics from "../routes/topics.js";
import * as users from "../routes/users.js";
import * as userStatus from "../routes/userStatus.js";
import * as userGroups from "../routes/userGroups.js";
import type { RouteEntry } from "./mount.js";

/**
 * THE route table: every (method, path) Parley serves under /api/v1, like Zulip's urls.py.
 * Handlers are named after Zulip's view functions.
 */
export const ROUTES: readonly RouteEntry[] = [
  // authentication
  { method: "POST", path: "/fetch_api_key", endpoint: auth.fetchApiKey },
  { method: "POST", path: "/dev_fetch_api_key", endpoint: auth.devFetchApiKey },
  { method: "POST", path: "/users/me/api_key/regenerate", endpoint: auth.regenerateApiKey },
  // Parley's extension: the user's web sessions (routes/sessions.ts)
  {
    method: "GET",
    path: "/users/me/sessions",
    endpoint: sessions.listSessions,
    extension: "the user's web sessions: browser, system, IP address, created, last active, this one",
  },
  {
    method: "DELETE",
    path: "/users/me/sessions",
    endpoint: sessions.endSessions,
    extension: "log out everywhere; with keep_current=true, every session but this one",
  },
  {
    method: "DELETE",
    path: "/users/me/sessions/:session_id",
    endpoint: sessions.endSession,
    extension: "end one web session (an id from the list, never the cookie)",
  },

  // server
  { method: "GET", path: "/server_settings", endpoint: serverSettings.getServerSettings },

  // real-time events
  { method: "POST", path: "/register", endpoint: register.registerQueue },
  { method: "GET", path: "/events", endpoint: events.getEvents },
  { method: "DELETE", path: "/events", endpoint: events.deleteEventQueue },
  { method: "POST", path: "/typing", endpoint: typing.sendTypingNotification },
  { method: "POST", path: "/messages/:message_id/typing", endpoint: typing.sendMessageEditTypingNotification },
  { method: "POST", path: "/users/me/presence", endpoint: presence.updatePresence },
  { method: "GET", path: "/realm/presence", endpoint: presence.getRealmPresence },
  { method: "GET", path: "/users/:user_id_or_email/presence", endpoint: presence.getUserPresence },
  // (end events)

  // users, roles, deactivation, status, custom profile fields
  { method: "GET", path: "/users/me", endpoint: users.getUserMe },
  { method: "DELETE", path: "/users/me", endpoint: users.deactivateOwnUser },
  { method: "POST", path: "/users/me/status", endpoint: userStatus.updateUserStatus },
  { method: "POST", path: "/users/me/avatar", endpoint: avatars.setAvatar },
  { method: "DELETE", path: "/users/me/avatar", endpoint: avatars.deleteAvatar },
  { method: "GET", path: "/users", endpoint: users.getMembers },
  { method: "POST", path: "/users", endpoint: users.createUser },
  { method: "GET", path: "/users/:user_id_or_email", endpoint: users.getMember },
  { method: "PATCH", path: "/users/:user_id_or_email", endpoint: users.updateUser },
  { method: "DELETE", path: "/users/:user_id_or_email", endpoint: users.deactivateUser },
  { method: "POST", path: "/users/:user_id_or_email/reactivate", endpoint: users.reactivateUser },
  { method: "GET", path: "/users/:user_id_or_email/status", endpoint: userStatus.getStatus },
  { method: "GET", path: "/realm/profile_fields", endpoint: customProfileFields.listRealmCustomProfileFields },
  { method: "POST", path: "/realm/profile_fields", endpoint: customProfileFields.createRealmCustomProfileField },
  { method: "PATCH", path: "/realm/profile_fields", endpoint: customProfileFields.reorderRealmCustomProfileFields },
  { method: "PATCH", path: "/realm/profile_fields/:field_id", endpoint: customProfileFields.updateRealmCustomProfileField },
  { method: "DELETE", path: "/realm/profile_fields/:field_id", endpoint: customProfileFields.deleteRealmCustomProfileField },
  { method: "PATCH", path: "/realm/user_settings_defaults", endpoint: settings.updateRealmUserSettingsDefaults },
  // (end users)

  // invitations
  { method: "GET", path: "/invites", endpoint: invitations.getInvites },
  { method: "POST", path: "/invites", endpoint: invitations.inviteUsers },
  { method: "POST", path: "/invites/multiuse", endpoint: invitations.createMultiuseInvite },
  { method: "DELETE", path: "/invites/:invite_id", endpoint: invitations.revokeEmailInvite },
  { method: "DELETE", path: "/invites/multiuse/:invite_id", endpoint: invitations.revokeMultiuseInvite },
  { method: "POST", path: "/invites/:invite_id/resend", endpoint: invitations.resendEmailInvite },
  // (end invitations)

  // personal settings
  { method: "PATCH", path: "/settings", endpoint: settings.updateSettings },
  { method: "PATCH", path: "/settings/display", endpoint: settings.updateSettings },
  { method: "PATCH", path: "/settings/notifications", endpoint: settings.updateSettings },
  // (end settings)

  // messages
  { method: "POST", path: "/messages", endpoint: messages.sendMessage },
  { method: "GET", path: "/messages", endpoint: messages.getMessages },
  { method: "GET", path: "/messages/matches_narrow", endpoint: messages.messagesMatchNarrow },
  { method: "GET", path: "/messages/:message_id", endpoint: messages.getMessage },
  // (end messages)

  // channels and subscriptions
  { method: "GET", path: "/users/me/subscriptions", endpoint: subscriptions.listSubscriptions },
  { method: "POST", path: "/users/me/subscriptions", endpoint: subscriptions.addSubscriptions },
  { method: "DELETE", path: "/users/me/subscriptions", endpoint: subscriptions.removeSubscriptions },
  { method: "PATCH", path: "/users/me/subscriptions", endpoint: subscriptions.updateSubscriptions },
  { method: "POST", path: "/users/me/subscriptions/properties", endpoint: subscriptions.updateSubscriptionProperties },
  { method: "GET", path: "/users/:user_id_or_email/subscriptions/:stream_id", endpoint: subscriptions.getSubscriptionStatus },
  { method: "GET", path: "/streams", endpoint: streams.getStreams },
  { method: "GET", path: "/streams/:stream_id", endpoint: streams.getStream },
  { method: "PATCH", path: "/streams/:stream_id", endpoint: streams.updateStream },
  { method: "DELETE", path: "/streams/:stream_id", endpoint: streams.deactivateStream },
  { method: "POST", path: "/default_streams", endpoint: streams.addDefaultStream },
  { method: "DELETE", path: "/default_streams", endpoint: streams.removeDefaultStream },
  { method: "GET", path: "/streams/:stream_id/members", endpoint: streams.getSubscribers },
  { method: "GET", path: "/streams/:stream_id/email_address", endpoint: streams.getStreamEmailAddress },
  { method: "GET", path: "/get_stream_id", endpoint: streams.getStreamId },
  // (end channels)

  // bots
  { method: "POST", path: "/bots", endpoint: bots.createBot },
  { method: "GET", path: "/bots", endpoint: bots.getBots },
  { method: "PATCH", path: "/bots/:bot_id", endpoint: bots.updateBot },
  { method: "DELETE", path: "/bots/:bot_id", endpoint: bots.deactivateBot },
  { method: "POST", path: "/bots/:bot_id/api_key/regenerate", endpoint: bots.regenerateBotApiKey },
  // push notification devices
  { method: "POST", path: "/users/me/apns_device_token", endpoint: pushDevices.addApnsToken },
  { method: "DELETE", path: "/users/me/apns_device_token", endpoint: pushDevices.removeApnsToken },
  { method: "POST", path: "/users/me/android_gcm_reg_id", endpoint: pushDevices.addFcmToken },
  { method: "DELETE", path: "/users/me/android_gcm_reg_id", endpoint: pushDevices.removeFcmToken },
  { method: "POST", path: "/mobile_push/test_notification", endpoint: pushDevices.sendTestNotification },
  { method: "GET", path: "/calls/bigbluebutton/create", endpoint: videoCalls.createBigBlueButtonCall },
  // organization settings
  { method: "PATCH", path: "/realm", endpoint: realmSettings.updateRealm },
  { method: "POST", path: "/realm/icon", endpoint: avatars.setRealmIcon },
  { method: "DELETE", path: "/realm/icon", endpoint: avatars.deleteRealmIcon },
  // reactions and custom emoji
  { method: "POST", path: "/messages/:message_id/reactions", endpoint: reactions.addReaction },
  { method: "DELETE", path: "/messages/:message_id/reactions", endpoint: reactions.removeReaction },
  { method: "POST", path: "/submessage", endpoint: submessages.addSubmessage },
  { method: "POST", path: "/messages/:message_id/report", endpoint: messageReports.reportMessage },
  { method: "GET", path: "/messages/:message_id/read_receipts", endpoint: readReceipts.getReadReceipts },
  { method: "GET", path: "/users/me/alert_words", endpoint: alertWords.listAlertWords },
  { method: "POST", path: "/users/me/alert_words", endpoint: alertWords.addAlertWords },
  { method: "DELETE", path: "/users/me/alert_words", endpoint: alertWords.removeAlertWords },
  { method: "POST", path: "/users/me/muted_users/:muted_user_id", endpoint: mutedUsers.muteUser },
  { method: "DELETE", path: "/users/me/muted_users/:muted_user_id", endpoint: mutedUsers.unmuteUser },
  // drafts, saved snippets, bot storage
  { method: "GET", path: "/drafts", endpoint: drafts.listDrafts },
  { method: "POST", path: "/drafts", endpoint: drafts.createDrafts },
  { method: "PATCH", path: "/drafts/:draft_id", endpoint: drafts.editDraft },
  { method: "DELETE", path: "/drafts/:draft_id", endpoint: drafts.deleteDraft },
  { method: "GET", path: "/saved_snippets", endpoint: drafts.listSavedSnippets },
  { method: "POST", path: "/saved_snippets", endpoint: drafts.createSavedSnippet },
  { method: "PATCH", path: "/saved_snippets/:saved_snippet_id", endpoint: drafts.editSavedSnippet },
  { method: "DELETE", path: "/saved_snippets/:saved_snippet_id", endpoint: drafts.deleteSavedSnippet },
  { method: "GET", path: "/bot_storage", endpoint: botStorage.getStorage },
  { method: "PUT", path: "/bot_storage", endpoint: botStorage.putStorage },
  { method: "DELETE", path: "/bot_storage", endpoint: botStorage.removeStorage },
  { method: "GET", path: "/realm/emoji", endpoint: realmEmoji.listEmoji },
  { method: "POST", path: "/realm/emoji/:emoji_name", endpoint: realmEmoji.uploadEmoji },
  { method: "DELETE", path: "/realm/emoji/:emoji_name", endpoint: realmEmoji.deleteEmoji },
  // (end reactions and custom emoji)
  // linkifiers and code playgrounds
  { method: "GET", path: "/realm/linkifiers", endpoint: realmLinkifiers.listLinkifiers },
  { method: "PATCH", path: "/realm/linkifiers", endpoint: realmLinkifiers.reorderLinkifiers },
  { method: "POST", path: "/realm/filters", endpoint: realmLinkifiers.addLinkifier },
  { method: "PATCH", path: "/realm/filters/:filter_id", endpoint: realmLinkifiers.updateLinkifier },
  { method: "DELETE", path: "/realm/filters/:filter_id", endpoint: realmLinkifiers.removeLinkifier },
  { method: "POST", path: "/realm/playgrounds", endpoint: realmPlaygrounds.addPlayground },
  { method: "DELETE", path: "/realm/playgrounds/:playground_id", endpoint: realmPlaygrounds.removePlayground },
  // uploads and attachments
  { method: "POST", path: "/user_uploads", endpoint: uploads.uploadFile },
  { method: "GET", path: "/user_uploads/:realm_id_str/*", endpoint: uploads.getFileTemporaryUrl },
  { method: "GET", path: "/attachments", endpoint: uploads.listAttachments },
  { method: "DELETE", path: "/attachments/:attachment_id", endpoint: uploads.deleteAttachment },

  // message flags, read state and topics
  { method: "POST", path: "/messages/flags", endpoint: messageFlags.updateMessageFlags },
  { method: "POST", path: "/messages/flags/narrow", endpoint: messageFlags.updateMessageFlagsForNarrow },
  { method: "POST", path: "/mark_all_as_read", endpoint: messageFlags.markAllAsRead },
  { method: "POST", path: "/mark_stream_as_read", endpoint: messageFlags.markStreamAsRead },
  { method: "POST", path: "/mark_topic_as_read", endpoint: messageFlags.markTopicAsRead },
  { method: "GET", path: "/users/me/:stream_id/topics", endpoint: topics.getTopics },
  { method: "POST", path: "/streams/:stream_id/delete_topic", endpoint: topics.deleteInTopic },
  { method: "POST", path: "/user_topics", endpoint: topics.updateUserTopic },
  { method: "PATCH", path: "/users/me/subscriptions/muted_topics", endpoint: topics.updateMutedTopic },
  // (end message flags and topics)

  // message editing, deletion, history, rendering
  { method: "PATCH", path: "/messages/:message_id", endpoint: messageEdit.updateMessage },
  { method: "DELETE", path: "/messages/:message_id", endpoint: messageEdit.deleteMessage },
  { method: "GET", path: "/messages/:message_id/history", endpoint: messageEdit.getMessageHistory },
  { method: "POST", path: "/messages/render", endpoint: messageRender.renderMessage },
  // (end message editing)

  // scheduled messages
  { method: "GET", path: "/scheduled_messages", endpoint: scheduledMessages.fetchScheduledMessages },
  { method: "POST", path: "/scheduled_messages", endpoint: scheduledMessages.createScheduledMessage },
  { method: "PATCH", path: "/scheduled_messages/:scheduled_message_id", endpoint: scheduledMessages.updateScheduledMessage },
  { method: "DELETE", path: "/scheduled_messages/:scheduled_message_id", endpoint: scheduledMessages.deleteScheduledMessages },
  // (end scheduled messages)

  // user groups
  { method: "GET", path: "/user_groups", endpoint: userGroups.getUserGroups },
  { method: "POST", path: "/user_groups/create", endpoint: userGroups.addUserGroup },
  { method: "PATCH", path: "/user_groups/:user_group_id", endpoint: userGroups.editUserGroup },
  { method: "POST", path: "/user_groups/:user_group_id/deactivate", endpoint: userGroups.deactivateUserGroup },
  { method: "GET", path: "/user_groups/:user_group_id/members", endpoint: userGroups.getUserGroupMembers },
  { method: "POST", path: "/user_groups/:user_group_id/members", endpoint: userGroups.updateUserGroupMembers },
  { method: "GET", path: "/user_groups/:user_group_id/members/:user_id", endpoint: userGroups.getIsUserGroupMember },
  { method: "GET", path: "/user_groups/:user_group_id/subgroups", endpoint: userGroups.getUserGroupSubgroups },
  { method: "POST", path: "/user_groups/:user_group_id/subgroups", endpoint: userGroups.updateUserGroupSubgroups },
  // (end user groups)

  // data exports
  { method: "POST", path: "/export/realm", endpoint: realmExport.exportRealm },
  { method: "GET", path: "/export/realm", endpoint: realmExport.getRealmExports },
  { method: "DELETE", path: "/export/realm/:export_id", endpoint: realmExport.deleteRealmExport },
  { method: "GET", path: "/export/realm/consents", endpoint: realmExport.getUsersExportConsents },
  // (end data exports)
];

/** A route served by its own module outside the endpoint machinery above (full URL, Fastify syntax). */
export interface HttpRouteEntry {
  methods: readonly ("GET" | "POST" | "PATCH" | "PUT" | "DELETE" | "HEAD" | "OPTIONS")[];
  path: string;
  servedBy: string;
  about: string;
}

/**
 * Every other route the server answers. app.ts refuses to start when a module registers a route
 * listed in neither table; docs/api-coverage.md lists these (scripts/api-coverage.mjs).
 */
export const HTTP_ROUTES: readonly HttpRouteEntry[] = [
  {
    methods: ["POST", "HEAD", "PATCH", "DELETE", "OPTIONS"],
    path: "/api/v1/tus",
    servedBy: "src/http/tus.ts",
    about: "resumable uploads (tus 1.0.0: creation, creation-with-upload, termination, expiration; feature level 296)",
  },
  { methods: ["POST", "HEAD", "PATCH", "DELETE", "OPTIONS"], path: "/api/v1/tus/*", servedBy: "src/http/tus.ts", about: "an upload in progress" },
  { methods: ["GET"], path: "/user_uploads/:realm_id/*", servedBy: "src/http/userUploads.ts", about: "an uploaded file" },
  { methods: ["GET"], path: "/user_uploads/download/:realm_id/*", servedBy: "src/http/userUploads.ts", about: "an uploaded file as a download" },
  { methods: ["GET"], path: "/user_uploads/thumbnail/:realm_id/*", servedBy: "src/http/userUploads.ts", about: "an image's thumbnail (`…/840x560.webp`)" },
  { methods: ["GET"], path: "/user_uploads/temporary/:token/:filename", servedBy: "src/http/userUploads.ts", about: "an uploaded file by a temporary URL" },
  { methods: ["GET"], path: "/user_avatars/:realm_id/emoji/images/:file", servedBy: "src/http/emojiFiles.ts", about: "custom emoji images" },
  {
    methods: ["GET"],
    path: "/user_avatars/:realm_id/:file",
    servedBy: "src/http/avatarFiles.ts",
    about: "an uploaded avatar (`{user_id}.png`, `{user_id}-medium.png`)",
  },
  { methods: ["GET"], path: "/user_avatars/:realm_id/realm/icon.png", servedBy: "src/http/avatarFiles.ts", about: "an uploaded organization icon" },
  {
    methods: ["GET"],
    path: "/user_avatars/exports/:realm_id/:token/:file",
    servedBy: "src/http/exportFiles.ts",
    about: "a data export's tarball, to the organization's administrators",
  },
  {
    methods: ["GET"],
    path: "/external_content/:digest/:hex",
    servedBy: "src/http/externalContent.ts",
    about: "the camo-compatible media proxy of message images and previews",
  },
  {
    methods: ["GET"],
    path: "/",
    servedBy: "src/http/webApp.ts",
    about: "the web app (signed in, or a visitor when the organization allows them) or a redirect to /login/",
  },
  { methods: ["GET"], path: "/login/", servedBy: "src/http/loginPage.ts", about: "the sign-in page" },
  { methods: ["GET"], path: "/accounts/login/", servedBy: "src/http/loginPage.ts", about: "Zulip's sign-in URL: a redirect to /login/" },
  {
    methods: ["GET"],
    path: "/static/login.js",
    servedBy: "src/http/loginPage.ts",
    about: "the sign-in page's script: a link's hash becomes where signing in leads",
  },
  { methods: ["GET", "POST"], path: "/devlogin/", servedBy: "src/http/webApp.ts", about: "development mode: sign in as any user" },
  { methods: ["GET"], path: "/static/webapp/:file", servedBy: "src/http/webApp.ts", about: "the web app's built assets" },
  { methods: ["GET"], path: "/static/pages.css", servedBy: "src/http/webApp.ts", about: "the sign-in pages' style" },
  {
    methods: ["GET"],
    path: "/calls/bigbluebutton/join",
    servedBy: "src/http/videoCallPages.ts",
    about: "a BigBlueButton join link: creates the meeting, then redirects there",
  },
  { methods: ["GET"], path: "/static/generated/emoji/emoji_api.json", servedBy: "src/app.ts", about: "`server_emoji_data_url`" },
  {
    methods: ["GET"],
    path: "/static/generated/emoji/images/emoji/unicode/zulip.png",
    servedBy: "src/http/emojiFiles.ts",
    about: "the image of Zulip's extra emoji `:zulip:` (our artwork)",
  },
  {
    methods: ["GET"],
    path: "/static/generated/emoji/images-:set/:file",
    servedBy: "src/http/emojiImages.ts",
    about: "a Unicode emoji's image in an emoji set (`images-google-64/1f389.png`), from the emoji-datasource packages",
  },
  {
    methods: ["GET"],
    path: "/static/generated/emoji/:file",
    servedBy: "src/http/emojiImages.ts",
    about: "an emoji set's sprite sheet (`sheet-google-64.png`)",
  },
  { methods: ["GET"], path: "/health", servedBy: "src/app.ts", about: "health check (reads the database)" },
  {
    methods: ["GET"],
    path: "/metrics",
    servedBy: "src/http/metrics.ts",
    about: "Prometheus metrics, with PARLEY_METRICS_TOKEN (else on PARLEY_METRICS_PORT only)",
  },
  { methods: ["POST"], path: "/accounts/login/", servedBy: "src/http/sessions.ts", about: "web session cookie: sign in" },
  { methods: ["POST"], path: "/accounts/logout/", servedBy: "src/http/sessions.ts", about: "web session cookie: sign out" },
  {
    methods: ["GET"],
    path: "/accounts/login/social/:key",
    servedBy: "src/http/externalAuthPages.ts",
    about: "sign in through an identity provider (server_settings' login_url)",
  },
  {
    methods: ["GET"],
    path: "/accounts/login/social/:key/:idp",
    servedBy: "src/http/externalAuthPages.ts",
    about: "sign in through one of a provider's IdPs (SAML, OpenID Connect)",
  },
  {
    methods: ["GET"],
    path: "/accounts/register/social/:key",
    servedBy: "src/http/externalAuthPages.ts",
    about: "sign up through an identity provider (server_settings' signup_url)",
  },
  {
    methods: ["GET"],
    path: "/accounts/register/social/:key/:idp",
    servedBy: "src/http/externalAuthPages.ts",
    about: "sign up through one of a provider's IdPs (SAML, OpenID Connect)",
  },
  {
    methods: ["GET"],
    path: "/account/two_factor/",
    servedBy: "src/auth/twoFactorPages.ts",
    about: "two-factor authentication: the user's state, and the organization's switch for owners",
  },
  {
    methods: ["GET", "POST"],
    path: "/account/two_factor/setup/",
    servedBy: "src/auth/twoFactorPages.ts",
    about: "two-factor authentication: set up an authenticator app (QR code), then backup codes",
  },
  {
    methods: ["GET", "POST"],
    path: "/account/two_factor/backup/tokens/",
    servedBy: "src/auth/twoFactorPages.ts",
    about: "two-factor authentication: new backup codes, after a code",
  },
  {
    methods: ["GET", "POST"],
    path: "/account/two_factor/disable/",
    servedBy: "src/auth/twoFactorPages.ts",
    about: "two-factor authentication: turn it off, after a code",
  },
  {
    methods: ["POST"],
    path: "/account/two_factor/organization/",
    servedBy: "src/auth/twoFactorPages.ts",
    about: "two-factor authentication: owners turn it on or off for the organization",
  },
  {
    methods: ["POST"],
    path: "/complete/saml/",
    servedBy: "src/auth/saml.ts",
    about: "SAML assertion consumer service: the IdP's Response (HTTP-POST binding)",
  },
  { methods: ["GET"], path: "/saml/metadata.xml", servedBy: "src/auth/saml.ts", about: "this server's SAML service provider metadata" },
  { methods: ["GET"], path: "/complete/github/", servedBy: "src/auth/github.ts", about: "GitHub sends the browser back here (OAuth 2 callback)" },
  { methods: ["GET"], path: "/complete/gitlab/", servedBy: "src/auth/gitlab.ts", about: "GitLab sends the browser back here (OAuth 2 callback)" },
  { methods: ["GET"], path: "/complete/google/", servedBy: "src/auth/google.ts", about: "Google sends the browser back here (OpenID Connect callback)" },
  {
    methods: ["GET"],
    path: "/static/images/authentication_backends/github-icon.png",
    servedBy: "src/auth/providerIcons.ts",
    about: "a sign-in button's image (server_settings' display_icon, as Zulip's)",
  },
  {
    methods: ["GET"],
    path: "/static/images/authentication_backends/gitlab-icon.png",
    servedBy: "src/auth/providerIcons.ts",
    about: "a sign-in button's image (server_settings' display_icon, as Zulip's)",
  },
  {
    methods: ["GET"],
    path: "/static/images/authentication_backends/googl_e-icon.png",
    servedBy: "src/auth/providerIcons.ts",
    about: "a sign-in button's image (server_settings' display_icon, as Zulip's)",
  },
  { methods: ["POST"], path: "/complete/github/email/", servedBy: "src/auth/github.ts", about: "the verified email chosen for a GitHub sign-in" },
  { methods: ["GET"], path: "/complete/oidc/", servedBy: "src/auth/oidc.ts", about: "OpenID Connect: the provider's redirect back (code, state)" },
  {
    methods: ["GET"],
    path: "/accounts/login/subdomain/:token",
    servedBy: "src/http/externalAuthPages.ts",
    about: "the desktop app's one-time login token (desktop_flow_otp) → web session",
  },
  { methods: ["GET"], path: "/accounts/confirm_new_email/:key", servedBy: "src/http/accountPages.ts", about: "the link of an email-change confirmation" },
  {
    methods: ["GET", "POST"],
    path: "/join/:key/",
    servedBy: "src/http/joinPages.ts",
    about: "an invitation's link: the sign-up form, and creating the account",
  },
  {
    methods: ["GET", "POST"],
    path: "/accounts/password/reset/",
    servedBy: "src/http/passwordResetPages.ts",
    about: "forgot your password: the address form, and sending the reset email",
  },
  {
    methods: ["GET"],
    path: "/accounts/password/reset/done/",
    servedBy: "src/http/passwordResetPages.ts",
    about: "the page after a reset request: check your email",
  },
  {
    methods: ["GET", "POST"],
    path: "/accounts/password/reset/:uid/:token/",
    servedBy: "src/http/passwordResetPages.ts",
    about: "a password reset link: the new-password form, and setting it",
  },
  { methods: ["GET"], path: "/accounts/password/done/", servedBy: "src/http/passwordResetPages.ts", about: "the page after a password reset: log in" },
  {
    methods: ["GET", "POST"],
    path: "/new/",
    servedBy: "src/http/organizationSignupPages.ts",
    about: "create a new organization (PARLEY_ORGANIZATION_SIGNUP, root domain only): the address form, and emailing the link",
  },
  {
    methods: ["GET", "POST"],
    path: "/new/confirm/:key/",
    servedBy: "src/http/organizationSignupPages.ts",
    about: "a new organization's link: the creation form, and creating the organization and its owner",
  },
  {
    methods: ["POST", "HEAD"],
    path: "/api/v1/external/:integration",
    servedBy: "src/http/incomingWebhooks.ts",
    about: "incoming webhooks: every integration of src/integrations/registry.ts",
  },
  {
    methods: ["GET"],
    path: "/integrations/",
    servedBy: "src/http/integrationPages.ts",
    about: "the integrations catalog: every integration by category, searchable (`?q=`), signed out too",
  },
  {
    methods: ["GET"],
    path: "/integrations/category/:category",
    servedBy: "src/http/integrationPages.ts",
    about: "the integrations of one category (Zulip's URL)",
  },
  {
    methods: ["GET"],
    path: "/integrations/doc/:name",
    servedBy: "src/http/integrationPages.ts",
    about: "how to connect one integration: setup, the URL's format, event types, URL options",
  },
  { methods: ["GET"], path: "/static/integrations.css", servedBy: "src/http/integrationPages.ts", about: "the integrations pages' style" },
  {
    methods: ["GET"],
    path: "/archive/",
    servedBy: "src/http/archivePages.ts",
    about: "the web-public archive: the organization's web-public channels, for visitors and search engines",
  },
  {
    methods: ["GET"],
    path: "/archive/channel/*",
    servedBy: "src/http/archivePages.ts",
    about: "a web-public channel's topics (`<id>-<name>/`) and a topic's messages (`<id>-<name>/topic/<topic>/`, 100 a page), server-rendered",
  },
  { methods: ["GET"], path: "/static/archive.css", servedBy: "src/http/archivePages.ts", about: "the archive pages' style" },
  { methods: ["GET"], path: "/robots.txt", servedBy: "src/http/archivePages.ts", about: "crawlers may read /archive/ while visitors are let in, nothing else" },
];

/** Whether (method, url) as Fastify registers it is listed in ROUTES (under /api/v1 or /json) or HTTP_ROUTES (HEAD: also a listed GET's). */
export function isListedRoute(method: string, url: string): boolean {
  // The route table is mounted twice: /api/v1 (API keys) and /json (the web app's session).
  const apiPath = url.startsWith("/api/v1/") ? url.slice("/api/v1".length) : url.startsWith("/json/") ? url.slice("/json".length) : undefined;
  const listed = (m: string) =>
    (apiPath !== undefined && ROUTES.some((r) => r.method === m && r.path === apiPath)) ||
    HTTP_ROUTES.some((r) => r.path === url && (r.methods as readonly string[]).includes(m));
  return listed(method) || (method === "HEAD" && listed("GET"));
}
