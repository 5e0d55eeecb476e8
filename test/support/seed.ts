import type { AppContext } from "../../src/appContext.js";
import { DEV_CHANNELS, DEV_USERS, seedDevelopmentRealm } from "../../src/dev/seed.js";

/** The test realm is Zulip's development realm, as in Zulip's own test suite. */
export type TestUserName = "aaron" | "ZOE" | "cordelia" | "desdemona" | "hamlet" | "iago" | "othello" | "polonius" | "prospero" | "shiva";

export async function seedTestRealm(ctx: AppContext): Promise<void> {
  await seedDevelopmentRealm(ctx);
}

type SeedUser = (typeof DEV_USERS)[number];

/**
 * The seeded users by short name, with their fixed ids: `seedUsers.iago.id` (11) instead of a bare
 * 11. The roles: desdemona owner, iago administrator, shiva moderator, polonius guest, the rest members.
 */
export const seedUsers = Object.fromEntries(DEV_USERS.map((u) => [u.email.split("@")[0], u])) as Record<TestUserName, SeedUser>;

/** Ids of seeded users by short name, e.g. `seedIds("hamlet", "iago")` → [10, 11]. */
export function seedIds(...names: TestUserName[]): number[] {
  return names.map((name) => seedUsers[name].id);
}

type SeedChannel = (typeof DEV_CHANNELS)[number];

/**
 * The seeded channels with their fixed ids: Verona (1, the default channel), Denmark (2), Scotland (3),
 * Venice (4), Rome (5, web-public) and the private "core team" (6).
 */
export const seedChannels = {
  verona: channel("Verona"),
  denmark: channel("Denmark"),
  scotland: channel("Scotland"),
  venice: channel("Venice"),
  rome: channel("Rome"),
  coreTeam: channel("core team"),
};

function channel(name: SeedChannel["name"]): SeedChannel {
  return DEV_CHANNELS.find((c) => c.name === name)!;
}

/** Who the seed subscribes to a channel, in id order (src/dev/seed.ts's SUBSCRIPTIONS). */
export const seedSubscribers = {
  denmark: seedIds("ZOE", "desdemona", "hamlet", "iago", "othello", "prospero", "shiva"),
  coreTeam: seedIds("desdemona", "hamlet", "iago"),
};
