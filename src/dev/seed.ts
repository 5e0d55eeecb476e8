import { transaction, type AppContext } from "../appContext.js";
import { doCreateRealm } from "../actions/realms.js";
import { doCreateUser } from "../actions/createUser.js";
import type { Realm } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { BotType, Role } from "../models/roles.js";

/**
 * Zulip's development organization, with the same ids and emails as Zulip's own development and
 * test environment, so that clients' example scripts and test suites run against Parley as they
 * do against `./tools/run-dev`: the internal realm's system bots take ids 1-5, then realm `zulip`
 * has aaron (6) ... shiva (15). The next created user gets id 16.
 */
export const DEV_PASSWORD = "parleydev";

export const SYSTEM_BOTS = [
  { id: 1, email: "notification-bot@zulip.com", full_name: "Notification Bot" },
  { id: 2, email: "emailgateway@zulip.com", full_name: "Email Gateway" },
  { id: 3, email: "nagios-send-bot@zulip.com", full_name: "Nagios Send Bot" },
  { id: 4, email: "nagios-receive-bot@zulip.com", full_name: "Nagios Receive Bot" },
  { id: 5, email: "welcome-bot@zulip.com", full_name: "Welcome Bot" },
] as const;

export const DEV_USERS = [
  { id: 6, email: "aaron@zulip.com", full_name: "aaron", role: Role.MEMBER },
  { id: 7, email: "ZOE@zulip.com", full_name: "ZOE", role: Role.MEMBER },
  { id: 8, email: "cordelia@zulip.com", full_name: "Cordelia, Lear's daughter", role: Role.MEMBER },
  { id: 9, email: "desdemona@zulip.com", full_name: "Desdemona", role: Role.OWNER },
  { id: 10, email: "hamlet@zulip.com", full_name: "King Hamlet", role: Role.MEMBER },
  { id: 11, email: "iago@zulip.com", full_name: "Iago", role: Role.ADMINISTRATOR },
  { id: 12, email: "othello@zulip.com", full_name: "Othello, the Moor of Venice", role: Role.MEMBER },
  { id: 13, email: "polonius@zulip.com", full_name: "Polonius", role: Role.GUEST },
  { id: 14, email: "prospero@zulip.com", full_name: "Prospero from The Tempest", role: Role.MEMBER },
  { id: 15, email: "shiva@zulip.com", full_name: "Shiva", role: Role.MODERATOR },
] as const;

export async function seedDevelopmentRealm(ctx: AppContext): Promise<Realm> {
  const fastHashing = ctx.config.fastPasswordHashing;
  return transaction(ctx, async (tx) => {
    const internal = await doCreateRealm(tx, { string_id: "zulipinternal", name: "System use only" });
    for (const bot of SYSTEM_BOTS) {
      await doCreateUser(tx, internal, { ...bot, password: null, is_bot: true, bot_type: BotType.GENERIC, fastHashing });
    }
    const realm = await doCreateRealm(tx, {
      string_id: "zulip",
      name: "Zulip Dev",
      description: "The Zulip development environment default organization. It's great for testing!",
    });
    for (const user of DEV_USERS) {
      await doCreateUser(tx, realm, {
        ...user,
        password: DEV_PASSWORD,
        timezone: "UTC",
        // Zulip's API test setup lets iago create users and change emails.
        can_create_users: user.email === "iago@zulip.com",
        can_change_user_emails: user.email === "iago@zulip.com" || user.email === "desdemona@zulip.com",
        fastHashing,
      });
    }
    await tx.dialect.bumpIdSequence(tx.q, "users", DEV_USERS[DEV_USERS.length - 1].id);
    await seedDevelopmentContent(tx, realm);
    return realm;
  });
}

/** Channels, subscriptions, groups, profile fields and a few messages of the dev realm. */
async function seedDevelopmentContent(_tx: Tx, _realm: Realm): Promise<void> {}
