import type { AppContext } from "../appContext.js";
import { transaction } from "../appContext.js";
import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { ApiError, badRequest } from "../lib/errors.js";
import { rateLimitStore } from "../store/rateLimits.js";
import { userStore } from "../store/users.js";
import { checkSendMessage } from "./messageSend.js";
import { sendNotificationBotDirectMessages } from "./notificationBot.js";
import { eventPasses, type EventFilter } from "../integrations/eventFilter.js";
import type { WebhookMessage } from "../integrations/types.js";

/**
 * Zulip's check_send_webhook_message: an integration's messages go to the channel named in the
 * webhook URL (`stream`, by name or id) under the URL's `topic` or the integration's own, or,
 * without a channel, to the bot's owner as direct messages. Sent through the normal send path,
 * so every rule of sending applies to the bot. Messages whose event type the URL's
 * only_events/exclude_events leave out are not sent.
 */
export interface WebhookTarget {
  stream?: string;
  topic?: string;
  filter: EventFilter;
  /** Zulip<DisplayName>Webhook, the sending client Zulip records. */
  clientName: string;
}

/** Posts the messages in one transaction; none is posted if one is refused. */
export async function postWebhookMessages(ctx: AppContext, bot: User, realm: Realm, target: WebhookTarget, messages: readonly WebhookMessage[]): Promise<void> {
  const wanted = messages.filter((m) => m.content.trim() !== "" && (m.directTo !== undefined || eventPasses(target.filter, m.eventType)));
  if (wanted.length === 0) return;
  try {
    await transaction(ctx, async (tx) => {
      for (const message of wanted) await sendOne(tx, bot, realm, target, message);
    });
  } catch (error) {
    // Zulip: a channel that does not exist is the owner's to fix; the service gets success.
    if (!(error instanceof ApiError) || error.code !== "STREAM_DOES_NOT_EXIST" || target.stream === undefined) throw error;
    const stream = target.stream;
    const content = /^\d+$/.test(stream)
      ? `Your bot \`${bot.delivery_email}\` tried to send a message to channel ID ${stream}, but there is no channel with that ID.`
      : `Your bot \`${bot.delivery_email}\` tried to send a message to channel #**${stream}**, but that channel does not exist. Click [here](#channels/new) to create it.`;
    await notifyBotOwner(ctx, bot, realm, content);
  }
}

async function sendOne(tx: Tx, bot: User, realm: Realm, target: WebhookTarget, message: WebhookMessage): Promise<void> {
  if (message.directTo !== undefined) {
    await checkSendMessage(tx, bot, realm, {
      type: "private",
      to: [message.directTo],
      topic: undefined,
      content: message.content,
      clientName: target.clientName,
      readBySender: true,
    });
    return;
  }
  if (target.stream !== undefined && target.stream !== "") {
    const to = /^\d+$/.test(target.stream) ? Number(target.stream) : target.stream;
    const topic = target.topic ?? message.topic;
    await checkSendMessage(tx, bot, realm, { type: "stream", to, topic, content: message.content, clientName: target.clientName, readBySender: true });
    return;
  }
  const owner = bot.bot_owner_id === null ? undefined : await userStore.getById(tx.q, bot.bot_owner_id);
  if (!owner || !owner.is_active) throw badRequest("Missing 'stream' argument");
  await checkSendMessage(tx, bot, realm, {
    type: "private",
    to: [owner.id],
    topic: undefined,
    content: message.content,
    clientName: target.clientName,
    readBySender: true,
  });
}

/** Zulip's guess of a user from a service's user name: full name (any case) or the start of the email (any case), oldest first. */
export async function guessRealmUser(ctx: AppContext, realm: Realm, name: string): Promise<number | undefined> {
  const wanted = name.toLowerCase();
  const users = await userStore.listInRealm(ctx.db.kysely, realm.id);
  return users.find((u) => u.is_active && (u.full_name.toLowerCase() === wanted || u.email.toLowerCase().startsWith(wanted)))?.id;
}

/**
 * A bot's owner hears of a misconfigured integration at most once a minute per bot (Zulip's
 * send_rate_limited_pm_notification_to_bot_owner and its BOT_OWNER_STREAM_ALERT_WAITPERIOD).
 * Counted in the database whether or not API rate limiting is on: it is not a rate limit on the
 * caller but a guard against flooding the owner.
 */
const OWNER_NOTICE_WINDOW_MS = 60_000;

export async function notifyBotOwner(ctx: AppContext, bot: User, realm: Realm, content: string): Promise<void> {
  const ownerId = bot.bot_owner_id;
  if (!bot.is_bot || ownerId === null || realm.deactivated) return;
  const window = await rateLimitStore.hit(ctx.db.kysely, `webhook_owner_notice:${bot.id}`, Date.now(), OWNER_NOTICE_WINDOW_MS);
  if (window.count > 1) return;
  await transaction(ctx, async (tx) => {
    const owner = ownerId === null ? undefined : await userStore.getById(tx.q, ownerId);
    if (owner?.is_active) await sendNotificationBotDirectMessages(tx, realm, [{ user: owner, content }]);
  });
}
