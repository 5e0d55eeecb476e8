import { type AppContext, transaction } from "../appContext.js";
import { OUTGOING_WEBHOOK_ATTEMPTS, type Trigger, type WebhookJob } from "../actions/outgoingWebhooks.js";
import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { EMBEDDED_BOTS, withoutLeadingMention } from "../lib/embeddedBots.js";
import { MessagePayloadBuilder } from "../lib/messagePayload.js";
import { renderMessageContent } from "../lib/messageRendering.js";
import { OutgoingHttpError, postOutgoing } from "../lib/outgoingHttp.js";
import { internalChannelAccess } from "../lib/streamAccess.js";
import { BotType } from "../models/roles.js";
import { type BotService, botServiceStore } from "../store/botServices.js";
import { type Message, messageStore } from "../store/messages.js";
import { realmStore } from "../store/realms.js";
import { channelRecipientStore } from "../store/subscriptions.js";
import { userMessageFlagStore } from "../store/userMessages.js";
import { userStore } from "../store/users.js";
import { ServiceInterface } from "../actions/bots.js";
import { doSendMessage } from "../actions/messageSend.js";
import { realmUrl } from "../lib/realms.js";

// The outgoing webhook job that actions/outgoingWebhooks.ts queues: delivery, the bot's reply, failures.

/** Job: deliver one message to one bot's service and act on the answer. */
export async function deliverOutgoingWebhook(ctx: AppContext, job: WebhookJob, row: { attempts: number }): Promise<void> {
  const q = ctx.db.kysely;
  const bot = await userStore.getById(q, job.botId);
  if (!bot || !bot.is_active) return;
  const [service] = await botServiceStore.listByBotIds(q, [bot.id]);
  const realm = await realmStore.getById(q, bot.realm_id);
  const [message] = await messageStore.listByIds(q, bot.realm_id, [job.messageId]);
  if (!service || !realm || !message) return; // deleted meanwhile
  if (realm.deactivated) return; // the organization was deactivated meanwhile: its bots are silent
  if (bot.bot_type === BotType.EMBEDDED) {
    const handler = EMBEDDED_BOTS[service.name];
    if (handler) {
      const reply = handler(withoutLeadingMention(message.content, bot.full_name));
      await transaction(ctx, (tx) => sendBotReply(tx, realm, bot, message, reply));
    }
    return;
  }
  const sender = await userStore.getById(q, message.sender_id);
  const request = await buildRequest(ctx, realm, bot, service, message, sender!, job.trigger);

  let response;
  try {
    response = await postOutgoing({ ...request, timeoutMs: ctx.config.outgoing.webhookTimeoutSeconds * 1000, allowHosts: ctx.config.outgoing.allowHosts });
  } catch (error) {
    if (!(error instanceof OutgoingHttpError)) throw error;
    if (error.kind === "forbidden") {
      await failAndNotify(
        ctx,
        realm,
        bot,
        message,
        "Unexpected response from server: the URL configured for the webhook is for a private or disallowed network.",
        "The URL configured for the webhook is for a private or disallowed network.",
      );
      return;
    }
    const failure =
      error.kind === "timeout"
        ? `Request timed out after ${ctx.config.outgoing.webhookTimeoutSeconds} seconds.`
        : "A connection error occurred. Is my bot server down?";
    if (row.attempts < OUTGOING_WEBHOOK_ATTEMPTS) throw new Error(failure, { cause: error }); // the job runner retries with backoff
    await failAndNotify(ctx, realm, bot, message, "Bot is unavailable", failure);
    return;
  }

  if (response.status < 200 || response.status >= 300) {
    const payload = response.text ? `\nThe response contains the following payload:\n\`\`\`\n${JSON.stringify(response.text)}\n\`\`\`` : "";
    await failAndNotify(
      ctx,
      realm,
      bot,
      message,
      `Third party responded with ${response.status}`,
      `The webhook got a response with status code *${response.status}*.${payload}`,
    );
    return;
  }
  let content: string | null;
  try {
    content = replyContent(response.text, service.interface);
  } catch (error) {
    const reason = (error as Error).message;
    await failAndNotify(ctx, realm, bot, message, reason, reason);
    return;
  }
  if (content !== null) await transaction(ctx, (tx) => sendBotReply(tx, realm, bot, message, content!));
}

async function buildRequest(ctx: AppContext, realm: Realm, bot: User, service: BotService, message: Message, sender: User, trigger: Trigger) {
  if (service.interface === ServiceInterface.SLACK) {
    const [stream] = message.is_channel_message ? await channelRecipientStore.streamsByRecipientIds(ctx.db.kysely, realm.id, [message.recipient_id]) : [];
    const form = new URLSearchParams({
      token: service.token,
      team_id: realm.string_id,
      team_domain: new URL(realmUrl(ctx.config, realm)).hostname,
      channel_id: stream ? String(stream.id) : "",
      channel_name: stream?.name ?? "",
      thread_ts: String(message.date_sent),
      timestamp: String(message.date_sent),
      user_id: String(sender.id),
      user_name: sender.full_name,
      text: message.content,
      trigger_word: trigger,
      service_id: String(service.id),
    });
    return { url: service.base_url, body: form.toString(), contentType: "application/x-www-form-urlencoded" };
  }
  const builder = await MessagePayloadBuilder.load(ctx.db.kysely, realm, [message]);
  const payload = builder.build(message, bot.id, [], { applyMarkdown: false, clientGravatar: false, allowEmptyTopicName: false }, bot);
  delete (payload as Record<string, unknown>).flags;
  const body = { bot_email: bot.email, bot_full_name: bot.full_name, data: message.content, trigger, token: service.token, message: payload };
  return { url: service.base_url, body: JSON.stringify(body), contentType: "application/json" };
}

/** Zulip's process_success_response: the reply text, or null when none is wanted. */
function replyContent(text: string, serviceInterface: number): string | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error("Invalid JSON in response");
  }
  if (json === "") return null;
  if (json === null || typeof json !== "object" || Array.isArray(json)) throw new Error("Invalid response format");
  const body = json as Record<string, unknown>;
  if (serviceInterface === ServiceInterface.SLACK) return typeof body.text === "string" && body.text.trim() !== "" ? body.text : null;
  if (body.response_not_required === true) return null;
  const content = body.content ?? body.response_string;
  if (content === undefined || content === null) return null;
  const reply = String(content);
  return reply.trim() === "" ? null : reply;
}

/** Posts as the bot in the message's conversation (a channel topic, or the same direct-message group). */
async function sendBotReply(tx: Tx, realm: Realm, bot: User, message: Message, content: string): Promise<void> {
  const rendered = await renderMessageContent(tx.q, realm, bot, content);
  const options = { readBySender: true, clientName: "OutgoingWebhookResponse" };
  if (message.is_channel_message) {
    const [stream] = await channelRecipientStore.streamsByRecipientIds(tx.q, realm.id, [message.recipient_id]);
    if (!stream || stream.is_archived) return;
    const receivers = await channelRecipientStore.activeSubscribers(tx.q, message.recipient_id);
    const destination = {
      kind: "channel" as const,
      access: internalChannelAccess(stream),
      recipientId: message.recipient_id,
      topic: message.subject,
      receivers,
    };
    await doSendMessage(tx, bot, realm, destination, content, rendered, options);
    return;
  }
  const participants = (await userMessageFlagStore.receiversByMessage(tx.q, [message.id])).get(message.id) ?? [];
  const others = participants.filter((id) => id !== bot.id);
  // A one-to-one conversation is addressed to the other person's personal recipient; a group keeps its recipient.
  const [other] = others;
  const recipientId = others.length === 1 && other !== undefined ? (await userStore.getById(tx.q, other))!.recipient_id : message.recipient_id;
  await doSendMessage(
    tx,
    bot,
    realm,
    { kind: "direct", recipientId, participantIds: [...new Set([...participants, bot.id])].sort((a, b) => a - b) },
    content,
    rendered,
    options,
  );
}

/** Zulip's fail_with_message + notify_bot_owner. */
async function failAndNotify(ctx: AppContext, realm: Realm, bot: User, message: Message, failure: string, ownerDetail: string): Promise<void> {
  await transaction(ctx, async (tx) => {
    await sendBotReply(tx, realm, bot, message, `Failure! ${failure}`);
    if (bot.bot_owner_id === null) return;
    const owner = await userStore.getById(tx.q, bot.bot_owner_id);
    if (!owner || !owner.is_active) return;
    const link = `${realmUrl(ctx.config, realm)}/#narrow/id/${message.id}`;
    const content = `[A message](${link}) to your bot @_**${bot.full_name}** triggered an outgoing webhook.\n${ownerDetail}`;
    const rendered = await renderMessageContent(tx.q, realm, bot, content);
    const participantIds = [bot.id, owner.id].sort((a, b) => a - b);
    await doSendMessage(tx, bot, realm, { kind: "direct", recipientId: owner.recipient_id, participantIds }, content, rendered, {
      readBySender: true,
      clientName: "OutgoingWebhookResponse",
    });
  });
}
