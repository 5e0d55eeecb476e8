/** Zulip's role codes (UserProfile.ROLE_*). */
export const Role = {
  OWNER: 100,
  ADMINISTRATOR: 200,
  MODERATOR: 300,
  MEMBER: 400,
  GUEST: 600,
} as const;
export type RoleCode = (typeof Role)[keyof typeof Role];
export const ROLE_CODES: readonly RoleCode[] = [100, 200, 300, 400, 600];

export const isOwner = (u: { role: number }) => u.role === Role.OWNER;
export const isAdmin = (u: { role: number }) => u.role <= Role.ADMINISTRATOR;
export const isModerator = (u: { role: number }) => u.role <= Role.MODERATOR;
export const isGuest = (u: { role: number }) => u.role === Role.GUEST;

/** Zulip's bot types. */
export const BotType = { GENERIC: 1, INCOMING_WEBHOOK: 2, OUTGOING_WEBHOOK: 3, EMBEDDED: 4 } as const;

/** Recipient.type */
export const RecipientType = { PERSONAL: 1, STREAM: 2, DIRECT_MESSAGE_GROUP: 3 } as const;
