import { Role } from "./roles.js";

/**
 * Zulip's system groups, from the widest to the narrowest. Each contains the next as a subgroup
 * (role:internet ⊃ role:everyone ⊃ role:members ⊃ role:fullmembers ⊃ role:moderators ⊃
 * role:administrators ⊃ role:owners); role:nobody is empty. Users are direct members of the
 * group of their role (members also of role:fullmembers once past the waiting period).
 */
export const SYSTEM_GROUPS = [
  { name: "role:internet", description: "Everyone on the internet" },
  { name: "role:everyone", description: "Everyone including guests" },
  { name: "role:members", description: "Everyone except guests" },
  { name: "role:fullmembers", description: "Members of this organization, not including new accounts and guests" },
  { name: "role:moderators", description: "Moderators of this organization, including administrators" },
  { name: "role:administrators", description: "Administrators of this organization, including owners" },
  { name: "role:owners", description: "Owners of this organization" },
  { name: "role:nobody", description: "Nobody" },
] as const;
export type SystemGroupName = (typeof SYSTEM_GROUPS)[number]["name"];

/** The system groups a user of `role` is a direct member of. */
export function directSystemGroupsForRole(role: number, isFullMember = true): SystemGroupName[] {
  switch (role) {
    case Role.OWNER:
      return ["role:owners"];
    case Role.ADMINISTRATOR:
      return ["role:administrators"];
    case Role.MODERATOR:
      return ["role:moderators"];
    case Role.MEMBER:
      return isFullMember ? ["role:members", "role:fullmembers"] : ["role:members"];
    default:
      return ["role:everyone"];
  }
}
