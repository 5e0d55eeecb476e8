/** The realm that holds Zulip's cross-realm system bots; never a user-facing organization. */
export const SYSTEM_BOT_REALM = "zulipinternal";

/**
 * Zulip's cross-realm system bots (settings.INTERNAL_BOTS), accounts of the system realm
 * (SYSTEM_BOT_REALM), in the order Zulip creates them: ids 1-5 on a new server.
 */
export const SYSTEM_BOTS = [
  { id: 1, email: "notification-bot@zulip.com", full_name: "Notification Bot" },
  { id: 2, email: "emailgateway@zulip.com", full_name: "Email Gateway" },
  { id: 3, email: "nagios-send-bot@zulip.com", full_name: "Nagios Send Bot" },
  { id: 4, email: "nagios-receive-bot@zulip.com", full_name: "Nagios Receive Bot" },
  { id: 5, email: "welcome-bot@zulip.com", full_name: "Welcome Bot" },
] as const;

export const WELCOME_BOT_EMAIL = "welcome-bot@zulip.com";
