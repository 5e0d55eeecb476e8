import type { User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { ApiError, badRequest } from "../lib/errors.js";
import { checkEmojiRequest, getEmojiData, normalizeReactionType } from "../lib/emoji.js";
import { accessMessageForModification, eventRecipientIdsForMessage } from "../lib/messageAccess.js";
import { AccessSubject } from "../lib/streamAccess.js";
import { MessageFlag } from "../models/messageFlags.js";
import type { Message } from "../store/messages.js";
import { type ReactionKey, reactionStore } from "../store/reactions.js";
import { userMessageStore } from "../store/userMessages.js";

class ReactionExistsError extends ApiError {
  constructor() {
    super("Reaction already exists.", { code: "REACTION_ALREADY_EXISTS" });
  }
}

class ReactionDoesNotExistError extends ApiError {
  constructor() {
    super("Reaction doesn't exist.", { code: "REACTION_DOES_NOT_EXIST" });
  }
}

export interface ReactionRequest {
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
}

/** The emoji of a reaction as stored and as sent in events and message payloads. */
interface ReactionEmoji {
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
}

/** POST /messages/{id}/reactions (Zulip's check_add_reaction). */
export async function checkAddReaction(tx: Tx, user: User, messageId: number, req: ReactionRequest & { emoji_name: string }): Promise<void> {
  const { message, flags } = await accessMessageForModification(tx.q, new AccessSubject(user), messageId);
  let { emoji_name: name, emoji_code: code } = req;
  let type = req.reaction_type === undefined ? undefined : normalizeReactionType(req.reaction_type);
  if (code === undefined || type === undefined) {
    const current = await getEmojiData(tx.q, user.realm_id, name);
    code ??= current.emoji_code;
    type ??= current.reaction_type;
  }
  const key: ReactionKey = { message_id: message.id, user_id: user.id, emoji_code: code, reaction_type: type };
  if (await reactionStore.exists(tx.q, key)) throw new ReactionExistsError();

  // A vote for a reaction someone already made keeps that reaction's name, unvalidated: its emoji
  // may have been renamed or deactivated since, and one emoji must not show under two names.
  const existing = await reactionStore.firstWithEmoji(tx.q, message.id, code, type);
  if (existing) name = existing.emoji_name;
  else await checkEmojiRequest(tx.q, user.realm_id, name, code, type);

  if (flags === null) {
    // Like Zulip, a reaction gives the user a (historical) row, so later events reach them.
    await userMessageStore.insertMany(tx.q, [{ user_id: user.id, message_id: message.id, flags: MessageFlag.READ | MessageFlag.HISTORICAL }]);
  }
  await doAddReaction(tx, user, message, { emoji_name: name, emoji_code: code, reaction_type: type });
}

/** Adds the reaction and tells everyone who may see the message; trusts its caller. */
export async function doAddReaction(tx: Tx, user: User, message: Message, emoji: ReactionEmoji): Promise<void> {
  const inserted = await reactionStore.insertIfAbsent(tx.q, { message_id: message.id, user_id: user.id, ...emoji });
  if (!inserted) throw new ReactionExistsError();
  await notifyReactionUpdate(tx, user, message, emoji, "add");
}

/** DELETE /messages/{id}/reactions (Zulip's remove_reaction). */
export async function checkRemoveReaction(tx: Tx, user: User, messageId: number, req: ReactionRequest & { reaction_type: string }): Promise<void> {
  const { message } = await accessMessageForModification(tx.q, new AccessSubject(user), messageId);
  let code = req.emoji_code;
  if (code === undefined) {
    if (req.emoji_name === undefined) throw badRequest("At least one of the following arguments must be present: emoji_name, emoji_code");
    code = (await getEmojiData(tx.q, user.realm_id, req.emoji_name)).emoji_code;
  }
  // No emoji validation: the row proves it was valid when added (a custom emoji may be deactivated since).
  await doRemoveReaction(tx, user, message, {
    message_id: message.id,
    user_id: user.id,
    emoji_code: code,
    reaction_type: normalizeReactionType(req.reaction_type),
  });
}

async function doRemoveReaction(tx: Tx, user: User, message: Message, key: ReactionKey): Promise<void> {
  const removed = await reactionStore.delete(tx.q, key);
  if (!removed) throw new ReactionDoesNotExistError();
  await notifyReactionUpdate(tx, user, message, removed, "remove");
}

async function notifyReactionUpdate(tx: Tx, user: User, message: Message, emoji: ReactionEmoji, op: "add" | "remove"): Promise<void> {
  tx.sendEventOnCommit(
    {
      type: "reaction",
      op,
      user_id: user.id,
      // Deprecated but still sent by Zulip 10.2 for older clients.
      user: { user_id: user.id, email: user.email, full_name: user.full_name },
      message_id: message.id,
      emoji_name: emoji.emoji_name,
      emoji_code: emoji.emoji_code,
      reaction_type: emoji.reaction_type,
      ...(message.is_channel_message ? { spectators: { realm_id: message.realm_id, recipient_id: message.recipient_id } } : {}),
    },
    await eventRecipientIdsForMessage(tx.q, message),
  );
}
