import { EMPTY_TOPIC_DISPLAY_NAME } from "../contract/constants.js";
import { type AppContext, transaction } from "../appContext.js";
import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { queueEmail } from "../email/queue.js";
import { canAccessUser, restrictedUserAccess } from "../lib/access.js";
import { INACCESSIBLE_USER_NAME } from "../lib/userPayload.js";
import { MessageFlag } from "../models/messageFlags.js";
import { userSettings } from "../models/userSettings.js";
import { type Message, messageStore } from "../store/messages.js";
import { missedMessageEmailStore } from "../store/missedMessageEmails.js";
import { realmStore } from "../store/realms.js";
import { channelRecipientStore } from "../store/subscriptions.js";
import { userMessageFlagStore, userMessageStore } from "../store/userMessages.js";
import { userStore } from "../store/users.js";
import { escapeHtml } from "../util/html.js";
import { isReceiverIdle } from "../actions/receiverIdle.js";
import { defined } from "../util/defined.js";
import { realmUrl } from "../lib/realms.js";

// The missed-message email job that actions/missedMessageEmails.ts queues.

function wanted(user: User, trigger: string): boolean {
  const settings = userSettings(user);
  return trigger === "followed_topic" ? settings.enable_followed_topic_email_notifications : settings.enable_offline_email_notifications;
}

/** Job: the user's pending missed messages, one email per conversation. */
export async function sendMissedMessageEmails(ctx: AppContext, job: { userId: number }): Promise<void> {
  // Asked before the transaction: it may ask the other processes.
  const found = await userStore.getById(ctx.db.kysely, job.userId);
  const foundRealm = found ? await realmStore.getById(ctx.db.kysely, found.realm_id) : undefined;
  const idle = !found || !foundRealm || (await isReceiverIdle(ctx, foundRealm, found.id));
  await transaction(ctx, async (tx) => {
    const user = await userStore.getById(tx.q, job.userId);
    const pending = await missedMessageEmailStore.listForUser(tx.q, job.userId);
    const ids = pending.map((p) => p.id);
    if (user && user.is_active && !idle) return missedMessageEmailStore.hold(tx.q, job.userId, ids); // on Zulip: until they go idle
    await missedMessageEmailStore.deleteForUser(tx.q, job.userId, ids);
    if (!user || !user.is_active || pending.length === 0) return;
    const realm = (await realmStore.getById(tx.q, user.realm_id))!;
    if (realm.deactivated) return; // Zulip: nothing is emailed for a deactivated organization
    const flags = await userMessageStore.flagsFor(
      tx.q,
      user.id,
      pending.map((p) => p.message_id),
    );
    const due = pending.filter((p) => wanted(user, p.trigger) && flags.has(p.message_id) && (flags.get(p.message_id)! & MessageFlag.READ) === 0);
    const messages = await messageStore.listByIds(
      tx.q,
      user.realm_id,
      due.map((p) => p.message_id),
    );
    const conversations = new Map<string, Message[]>();
    for (const message of messages.sort((a, b) => a.id - b.id)) {
      const key = message.is_channel_message ? `${message.recipient_id}\u0000${message.subject.toLowerCase()}` : `dm:${message.recipient_id}`;
      conversations.set(key, [...(conversations.get(key) ?? []), message]);
    }
    // Senders a guest restricted by can_access_all_users_group may not access stay "Unknown user".
    const accessible = await restrictedUserAccess(tx.q, user, realm);
    for (const group of conversations.values()) await queueConversationEmail(tx, ctx, realm, user, group, accessible);
  });
}

async function queueConversationEmail(
  tx: Tx,
  ctx: AppContext,
  realm: Realm,
  user: User,
  messages: Message[],
  accessible: ReadonlySet<number> | null,
): Promise<void> {
  const senders = new Map((await userStore.listByIds(tx.q, realm.id, [...new Set(messages.map((m) => m.sender_id))])).map((u) => [u.id, u]));
  const first = defined(messages[0], "the conversation's first message");
  let subject: string;
  if (first.is_channel_message) {
    const [stream] = await channelRecipientStore.streamsByRecipientIds(tx.q, realm.id, [first.recipient_id]);
    subject = `#${stream?.name ?? ""} > ${first.subject === "" ? EMPTY_TOPIC_DISPLAY_NAME : first.subject}`;
  } else {
    const participants = ((await userMessageFlagStore.receiversByMessage(tx.q, [first.id])).get(first.id) ?? []).filter((id) => id !== user.id);
    const names = (await userStore.listByIds(tx.q, realm.id, participants)).map((u) => u.full_name).sort();
    subject = participants.length > 1 ? `Group DMs with ${names.join(", ")}` : `DMs with ${names[0] ?? "yourself"}`;
  }
  const link = `${realmUrl(ctx.config, realm)}/#narrow/near/${messages.at(-1)!.id}`;
  const showContent = userSettings(user).message_content_in_email_notifications;
  const text: string[] = [];
  const html: string[] = [];
  for (const message of messages) {
    const author = senders.get(message.sender_id);
    // A direct message makes its sender accessible; a channel message may come from someone who is not.
    const sender = !author ? "Someone" : message.is_channel_message && !canAccessUser(accessible, author) ? INACCESSIBLE_USER_NAME : author.full_name;
    text.push(showContent ? `${sender}: ${message.content}` : `${sender} sent you a message.`);
    html.push(
      `<div class="message"><b>${escapeHtml(sender)}</b>${showContent ? `<div>${message.rendered_content ?? escapeHtml(message.content)}</div>` : ""}</div>`,
    );
  }
  text.push(
    "",
    `Reply in Zulip: ${link}`,
    "",
    `You are receiving this because you were offline in ${realm.name}. Change your notification settings in Parley's personal settings.`,
  );
  html.push(`<p><a href="${escapeHtml(link)}">Reply in Zulip</a></p>`);
  await queueEmail(tx, { to: user.delivery_email, subject, text: text.join("\n") + "\n", html: html.join("\n"), template: "missed_message" });
}
