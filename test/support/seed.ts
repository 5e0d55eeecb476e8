import type { AppContext } from "../../src/appContext.js";
import { seedDevelopmentRealm } from "../../src/dev/seed.js";

/** The test realm is Zulip's development realm, as in Zulip's own test suite. */
export type TestUserName = "aaron" | "ZOE" | "cordelia" | "desdemona" | "hamlet" | "iago" | "othello" | "polonius" | "prospero" | "shiva";

export async function seedTestRealm(ctx: AppContext): Promise<void> {
  await seedDevelopmentRealm(ctx);
}
