import { Role } from "../contract/constants.js";

/** Zulip's role codes: defined in the API contract (src/contract/constants.ts), shared with the web app. */
export { Role, type RoleCode, ROLE_CODES } from "../contract/constants.js";

export const isOwner = (u: { role: number }) => u.role === Role.OWNER;
export const isAdmin = (u: { role: number }) => u.role <= Role.ADMINISTRATOR;
export const isModerator = (u: { role: number }) => u.role <= Role.MODERATOR;
export const isGuest = (u: { role: number }) => u.role === Role.GUEST;

/** Zulip's bot types. */
export const BotType = { GENERIC: 1, INCOMING_WEBHOOK: 2, OUTGOING_WEBHOOK: 3, EMBEDDED: 4 } as const;

/** Recipient.type */
export const RecipientType = { PERSONAL: 1, STREAM: 2, DIRECT_MESSAGE_GROUP: 3 } as const;
