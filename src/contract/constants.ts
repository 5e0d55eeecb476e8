/**
 * The API's codes and fixed names that the server and the web app (web/src) both use: one
 * definition for both. This folder is the lowest layer (eslint.config.js): plain types and
 * constants, no imports from Node.js, npm packages or other folders, so that both compilers (the
 * server's NodeNext tsconfig.json, the web app's Bundler web/tsconfig.json) and both bundlers read it.
 */

/** Zulip's role codes (UserProfile.ROLE_*): a smaller code is a stronger role. */
export const Role = {
  OWNER: 100,
  ADMINISTRATOR: 200,
  MODERATOR: 300,
  MEMBER: 400,
  GUEST: 600,
} as const;
export type RoleCode = (typeof Role)[keyof typeof Role];
export const ROLE_CODES: readonly RoleCode[] = [Role.OWNER, Role.ADMINISTRATOR, Role.MODERATOR, Role.MEMBER, Role.GUEST];

/** Zulip's user_topic visibility policies. */
export const VisibilityPolicy = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;
export type VisibilityPolicyCode = (typeof VisibilityPolicy)[keyof typeof VisibilityPolicy];

/** Zulip's RESOLVED_TOPIC_PREFIX: a resolved topic's name starts with it. */
export const RESOLVED_TOPIC_PREFIX = "✔ ";

/** Zulip's Message.EMPTY_TOPIC_FALLBACK_NAME: realm_empty_topic_display_name in Zulip 10. */
export const EMPTY_TOPIC_DISPLAY_NAME = "general chat";

/**
 * The narrow operators' old names (Zulip's NarrowParameter and the web app's filter) → their
 * canonical names, as the API accepts them.
 */
export const NARROW_OPERATOR_ALIASES: Readonly<Record<string, string>> = {
  stream: "channel",
  streams: "channels",
  subject: "topic",
  "pm-with": "dm",
  "group-pm-with": "dm-including",
};

/** The aliases a URL hash or the search box accepts: the API's, and `from` for `sender` (Zulip's filter.ts). */
export const HASH_OPERATOR_ALIASES: Readonly<Record<string, string>> = { ...NARROW_OPERATOR_ALIASES, from: "sender" };
