import type { Realm, Stream, User } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { RecipientType } from "../models/roles.js";
import { EMPTY_TOPIC_DISPLAY_NAME } from "../contract/constants.js";
import type { MessagePayload as ContractMessagePayload } from "../contract/payloads.js";
import { messagePayloadLookupStore } from "../store/messagePayloadLookups.js";
import type { Message, Submessage } from "../store/messages.js";
import type { Reaction } from "../store/reactions.js";
import { parseEditHistory } from "./editHistory.js";
import { type Linkifier, topicLinks } from "./linkifiers.js";
import { isMeMessage, realmLinkifiers } from "./messageRendering.js";
import { avatarUrlFor, fakeEmail, INACCESSIBLE_USER_NAME, inaccessibleAvatarUrl } from "./userPayload.js";
import { SYSTEM_BOT_REALM } from "../models/systemBots.js";

/**
 * The message objects of GET /messages, GET /messages/{id} and message events (Zulip's
 * MessageDict). Field names and the per-viewer rules (avatar, content type, empty topic name,
 * 1:1 recipient_id) live here only. Loading is batched: a constant number of queries for any
 * number of messages.
 */
export interface MessagePayloadOptions {
  applyMarkdown: boolean;
  clientGravatar: boolean;
  allowEmptyTopicName: boolean;
  /**
   * For a viewer restricted by can_access_all_users_group: the users he may access. A sender
   * outside it (not a bot, not the viewer) is shown as Zulip's finalize_payload does for
   * can_access_sender=False: "Unknown user", `user{id}@{realm host}`, the unknown-user avatar.
   */
  senderAccess?: SenderAccess | null;
}

export interface SenderAccess {
  accessible: ReadonlySet<number>;
  /** The organization's URL (realmUrl): the fake email's domain and the avatar's base. */
  realmUrl: string;
}

/** The API contract's message (src/contract/payloads.ts) and what only some clients read. */
export type MessagePayload = ContractMessagePayload & { edit_history?: unknown; [field: string]: unknown };

interface DisplayUser {
  id: number;
  email: string;
  full_name: string;
  is_mirror_dummy: boolean;
}

/** Everything the messages' payloads refer to, loaded once. */
export class MessagePayloadBuilder {
  private constructor(
    private readonly realm: Realm,
    private readonly users: Map<number, User>,
    private readonly recipients: Map<number, { type: number; type_id: number }>,
    private readonly streamNames: Map<number, { id: number; name: string }>,
    private readonly groupMembers: Map<number, number[]>,
    private readonly reactions: Map<number, Reaction[]>,
    private readonly submessages: Map<number, Submessage[]>,
    private readonly linkifiers: readonly Linkifier[],
  ) {}

  static async load(q: Executor, realm: Realm, messages: readonly Message[]): Promise<MessagePayloadBuilder> {
    return this.loadKnowing(q, realm, messages, { users: [], channels: [], submessages: [], justSent: false });
  }

  /**
   * load() for messages just sent (doSendMessages), with what the sender already holds: their
   * channels and users are not read again, and new messages have no reactions, and no
   * submessages but the widgets the sender just made (`known.submessages`). A channel message from
   * a known sender costs no statement at all.
   */
  static async loadJustSent(
    q: Executor,
    realm: Realm,
    messages: readonly Message[],
    known: { users: readonly User[]; channels: readonly Stream[]; submessages: readonly Submessage[]; linkifiers: readonly Linkifier[] },
  ): Promise<MessagePayloadBuilder> {
    return this.loadKnowing(q, realm, messages, { ...known, justSent: true });
  }

  private static async loadKnowing(
    q: Executor,
    realm: Realm,
    messages: readonly Message[],
    known: {
      users: readonly User[];
      channels: readonly Stream[];
      submessages: readonly Submessage[];
      /** The organization's linkifiers, when the caller has them (the sender rendered with them). */
      linkifiers?: readonly Linkifier[];
      justSent: boolean;
    },
  ): Promise<MessagePayloadBuilder> {
    // At most three statements for any number of messages: recipients with their channels and
    // groups, then the users they name (cross-realm system bots included), then reactions and
    // submessages.
    const recipients = new Map<number, { type: number; type_id: number }>();
    const streamNames = new Map<number, { id: number; name: string }>();
    const groupMembers = new Map<number, number[]>();
    const userIds = new Set<number>(messages.map((m) => m.sender_id));
    for (const channel of known.channels) {
      if (channel.recipient_id === null || channel.realm_id !== realm.id) continue;
      recipients.set(channel.recipient_id, { type: RecipientType.STREAM, type_id: channel.id });
      streamNames.set(channel.recipient_id, { id: channel.id, name: channel.name });
    }
    const unknownRecipients = [...new Set(messages.map((m) => m.recipient_id))].filter((id) => !recipients.has(id));
    for (const r of await messagePayloadLookupStore.recipients(q, realm.id, unknownRecipients)) {
      recipients.set(r.id, { type: r.type, type_id: r.type_id });
      if (r.type === RecipientType.STREAM && r.stream_id !== null) streamNames.set(r.id, { id: r.stream_id, name: r.stream_name! });
      if (r.type === RecipientType.PERSONAL) userIds.add(r.type_id);
      if (r.type === RecipientType.DIRECT_MESSAGE_GROUP && r.member_key !== null) {
        const members = r.member_key.split(",").map(Number);
        groupMembers.set(r.id, members);
        for (const id of members) userIds.add(id);
      }
    }
    const users = new Map(known.users.filter((u) => userIds.has(u.id)).map((u) => [u.id, u]));
    const unknownUsers = [...userIds].filter((id) => !users.has(id));
    for (const user of await messagePayloadLookupStore.usersAndSystemBots(q, realm.id, SYSTEM_BOT_REALM, unknownUsers)) users.set(user.id, user);
    const { reactions, submessages } = known.justSent
      ? { reactions: [], submessages: [...known.submessages] }
      : await messagePayloadLookupStore.reactionsAndSubmessages(
          q,
          messages.map((m) => m.id),
        );
    // Channel messages' topic_links: one more statement, only when there are any.
    let linkifiers: readonly Linkifier[] = [];
    if (messages.some((m) => streamNames.has(m.recipient_id))) linkifiers = known.linkifiers ?? (await realmLinkifiers(q, realm));
    return new MessagePayloadBuilder(realm, users, recipients, streamNames, groupMembers, groupBy(reactions), groupBy(submessages), linkifiers);
  }

  /**
   * One message as the user `viewerId` sees it, with that user's flags (API names). `viewer` is
   * needed only with clientGravatar (whether the viewer may see the sender's real email).
   */
  build(message: Message, viewerId: number | null, flags: string[], options: MessagePayloadOptions, viewer: User | null = null): MessagePayload {
    const sender = this.users.get(message.sender_id)!;
    const recipient = this.recipients.get(message.recipient_id)!;
    const access = options.senderAccess;
    const hidden = access ? !sender.is_bot && sender.id !== viewerId && !access.accessible.has(sender.id) : false;
    const stream = recipient.type === RecipientType.STREAM ? this.streamNames.get(message.recipient_id)! : null;
    const payload: MessagePayload = {
      id: message.id,
      sender_id: sender.id,
      sender_full_name: hidden ? INACCESSIBLE_USER_NAME : sender.full_name,
      sender_email: hidden ? fakeEmail(sender.id, access!.realmUrl) : sender.email,
      sender_realm_str: this.realm.string_id,
      avatar_url: hidden ? inaccessibleAvatarUrl(access!.realmUrl) : avatarUrlFor(viewer, sender, options.clientGravatar),
      client: message.sending_client,
      content: options.applyMarkdown ? (message.rendered_content ?? "") : message.content,
      content_type: options.applyMarkdown ? "text/html" : "text/x-markdown",
      recipient_id: message.recipient_id,
      is_me_message: isMeMessage(message.content),
      timestamp: message.date_sent,
      reactions: (this.reactions.get(message.id) ?? []).map((r) => ({
        emoji_name: r.emoji_name,
        emoji_code: r.emoji_code,
        reaction_type: r.reaction_type,
        user_id: r.user_id,
      })),
      submessages: (this.submessages.get(message.id) ?? []).map((s) => ({
        id: s.id,
        message_id: s.message_id,
        sender_id: s.sender_id,
        msg_type: s.msg_type,
        content: s.content,
      })),
      topic_links: recipient.type === RecipientType.STREAM ? topicLinks(this.linkifiers, message.subject) : [],
      flags,
      type: stream ? "stream" : "private",
      display_recipient: stream ? stream.name : this.directRecipients(message, recipient),
      ...(stream ? { stream_id: stream.id } : {}),
      subject: !stream ? "" : message.subject === "" && !options.allowEmptyTopicName ? EMPTY_TOPIC_DISPLAY_NAME : message.subject,
    };
    if (!stream) {
      // Zulip 10 (feature level 327): an incoming 1:1 message carries the conversation's
      // recipient_id as seen by the viewer, i.e. the sender's personal recipient.
      if (recipient.type === RecipientType.PERSONAL && recipient.type_id === viewerId && sender.id !== viewerId && sender.recipient_id !== null) {
        payload.recipient_id = sender.recipient_id;
      }
    }
    if (message.edit_history !== null) payload.edit_history = parseEditHistory(message.edit_history);
    if (message.last_edit_time !== null) payload.last_edit_timestamp = message.last_edit_time;
    if (message.last_moved_time !== null) payload.last_moved_timestamp = message.last_moved_time;
    return payload;
  }

  private directRecipients(message: Message, recipient: { type: number; type_id: number }): DisplayUser[] {
    const ids = recipient.type === RecipientType.PERSONAL ? [recipient.type_id, message.sender_id] : (this.groupMembers.get(message.recipient_id) ?? []);
    return [...new Set(ids)]
      .map((id) => this.users.get(id))
      .filter((u): u is User => u !== undefined)
      .map((u) => ({ id: u.id, email: u.email, full_name: u.full_name, is_mirror_dummy: u.is_mirror_dummy === 1 }))
      .sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0));
  }
}

function groupBy<T extends { message_id: number }>(rows: T[]): Map<number, T[]> {
  const result = new Map<number, T[]>();
  for (const row of rows) {
    const list = result.get(row.message_id);
    if (list) list.push(row);
    else result.set(row.message_id, [row]);
  }
  return result;
}
