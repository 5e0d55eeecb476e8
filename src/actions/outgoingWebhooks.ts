import type { User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { BotType } from "../models/roles.js";
import { type Message } from "../store/messages.js";
import { userStore } from "../store/users.js";

/**
 * Outgoing webhooks (Zulip's zerver/lib/outgoing_webhook.py) and embedded bots. A message that
 * mentions an outgoing-webhook or embedded bot, or a direct message to one, queues a durable job
 * per bot in the
 * sending transaction; the job POSTs the payload to the bot's service after commit, so a slow or
 * dead bot server never delays sending. The reply (`content`, unless `response_not_required`) is
 * posted by the bot in the same conversation. As in Zulip: an HTTP error answer fails at once
 * ("Failure! Third party responded with N"); a timeout or connection error is retried, and after
 * the last try the bot says it is unavailable; either way the bot's owner gets a direct message
 * from the bot saying what happened. Messages sent by bots trigger nothing (no loops).
 */
export const OUTGOING_WEBHOOK_JOB = "outgoing_webhook";
/** One first try and three retries (Zulip's MAX_REQUEST_RETRIES = 3). */
export const OUTGOING_WEBHOOK_ATTEMPTS = 4;

export type Trigger = "mention" | "direct_message";

export interface WebhookJob {
  botId: number;
  messageId: number;
  trigger: Trigger;
}

/** Called by doSendMessage: one job per outgoing-webhook bot the message triggers. */
export async function queueOutgoingWebhooks(tx: Tx, sender: User, message: Message, candidateIds: Iterable<number>, trigger: Trigger): Promise<void> {
  if (sender.is_bot) return;
  const ids = [...new Set(candidateIds)].filter((id) => id !== sender.id);
  if (ids.length === 0) return;
  const bots = (await userStore.listByIds(tx.q, sender.realm_id, ids)).filter(
    (u) => u.is_bot && u.is_active && (u.bot_type === BotType.OUTGOING_WEBHOOK || u.bot_type === BotType.EMBEDDED),
  );
  for (const bot of bots) {
    await tx.enqueueJob(OUTGOING_WEBHOOK_JOB, { botId: bot.id, messageId: message.id, trigger } satisfies WebhookJob, {
      maxAttempts: OUTGOING_WEBHOOK_ATTEMPTS,
    });
  }
}
