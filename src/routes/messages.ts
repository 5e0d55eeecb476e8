import * as z from "zod";
import { transaction } from "../appContext.js";
import { checkMessage, sendCheckedMessage, type SendMessageRequest } from "../actions/messageSend.js";
import type { Realm, User } from "../db/schema.js";
import { inCheckThenWrite, type Executor } from "../db/tx.js";
import { endpoint } from "../http/endpoint.js";
import { badRequest, MissingArgumentError } from "../lib/errors.js";
import { p, pathParam } from "../http/params.js";
import { accessMessage, accessMessageAsVisitor } from "../lib/messageAccess.js";
import { MessagePayloadBuilder, type MessagePayload, type MessagePayloadOptions } from "../lib/messagePayload.js";
import { narrowQueryFor, buildNarrow, canonicalTerms, narrowSchema, searchFields, type BuiltNarrow } from "../lib/narrow/index.js";
import { AccessSubject } from "../lib/streamAccess.js";
import { senderAccessFor } from "../lib/userAccessEvents.js";
import { realmUrl, type UrlConfig } from "../lib/realms.js";
import { flagsToList, HISTORICAL_FLAGS } from "../models/messageFlags.js";
import { type NarrowQuery, narrowQueryStore, type NarrowMessage } from "../store/narrowQueries.js";

/** Zulip's MAX_MESSAGES_PER_FETCH and LARGER_THAN_MAX_MESSAGE_ID. */
const MAX_MESSAGES_PER_FETCH = 5000;
const LARGER_THAN_MAX_MESSAGE_ID = 10000000000000000;

/** POST /messages */
export const sendMessage = endpoint({
  auth: "user",
  allowIncomingWebhookBots: true,
  params: {
    type: p.enum(["direct", "private", "stream", "channel"]),
    to: p.textOrJson(),
    content: p.string({ trim: false }),
    topic: p.string({ trim: false }).optional().alias("subject"),
    queue_id: p.string().optional(),
    local_id: p.string().optional(),
    read_by_sender: p.bool().optional(),
  },
  handler: async ({ ctx, user, realm, params, request }) => {
    const req: SendMessageRequest = {
      type: params.type,
      to: params.to,
      content: params.content,
      topic: params.topic,
      queueId: params.queue_id,
      localId: params.local_id,
      readBySender: params.read_by_sender,
      clientName: request.clientName,
      realmUrl: realmUrl(ctx.config, realm),
    };
    return inCheckThenWrite(
      ctx,
      (tx) => checkMessage(tx, user, realm, req),
      (tx, checked) => sendCheckedMessage(tx, user, realm, checked, req),
      // Sends to one conversation share a group commit's lane (db/groupCommit.ts): a busy channel's
      // messages batch, and their polls are answered once per batch.
      { batchKey: `${user.realm_id} ${JSON.stringify(params.to).toLowerCase()}` },
    );
  },
});

/** Zulip's parse_anchor_value. */
function parseAnchor(value: string | undefined, useFirstUnread: boolean): number | null {
  if (useFirstUnread) return null;
  if (value === undefined) throw badRequest("Missing 'anchor' argument.");
  if (value === "oldest") return 0;
  if (value === "newest") return LARGER_THAN_MAX_MESSAGE_ID;
  if (value === "first_unread") return null;
  if (!/^-?\d+$/.test(value)) throw badRequest("Invalid anchor");
  return Math.min(Math.max(Number(value), 0), LARGER_THAN_MAX_MESSAGE_ID);
}

/**
 * GET /messages. A visitor (no credentials; Zulip's spectator) may fetch narrows of the channels
 * visitors may read (lib/narrow's visitorTerms decides which narrows): every message comes with
 * flags ["read"], and avatars as for a client without client_gravatar.
 */
export const getMessages = endpoint({
  auth: "visitor",
  params: {
    anchor: p.string().optional(),
    include_anchor: p.bool().default(true),
    num_before: p.int({ min: 0 }).optional(),
    num_after: p.int({ min: 0 }).optional(),
    narrow: p.json(narrowSchema).default([]),
    client_gravatar: p.bool().default(true),
    apply_markdown: p.bool().default(true),
    message_ids: p.json(z.array(z.int().min(0))).optional(),
    allow_empty_topic_name: p.bool().default(false),
    use_first_unread_anchor: p.bool().default(false),
  },
  handler: async ({ ctx, user, realm, params }) => {
    const { message_ids: messageIds } = params;
    if (messageIds !== undefined && (params.num_before || params.num_after || params.anchor !== undefined || params.use_first_unread_anchor)) {
      throw badRequest("Unsupported parameter combination: num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor", {
        parameters: "num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor",
      });
    }
    if (messageIds === undefined && params.num_before === undefined) throw new MissingArgumentError("num_before");
    if (messageIds === undefined && params.num_after === undefined) throw new MissingArgumentError("num_after");
    const numBefore = params.num_before ?? 0;
    const numAfter = params.num_after ?? 0;
    const includeAnchor = messageIds === undefined && params.include_anchor;
    const anchorValue = messageIds === undefined ? parseAnchor(params.anchor, params.use_first_unread_anchor) : null;
    const requested = messageIds !== undefined ? messageIds.length : numBefore + numAfter;
    if (requested > MAX_MESSAGES_PER_FETCH) throw badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
    if (numBefore > 0 && numAfter > 0 && !includeAnchor) throw badRequest("The anchor can only be excluded at an end of the range");
    const terms = canonicalTerms(params.narrow);
    // Zulip: a visitor's client_gravatar is always false (finalize_payload decides per sender).
    const clientGravatar = user !== null && params.client_gravatar;
    const options = { applyMarkdown: params.apply_markdown, clientGravatar, allowEmptyTopicName: params.allow_empty_topic_name };

    return transaction(ctx, async (tx) => {
      const q = tx.q;
      const subject = user ? new AccessSubject(user) : null;
      const narrow = await buildNarrow({ q, subject, me: user, realmId: realm.id }, terms);
      const query = narrowQueryFor(narrow, user, realm.id);
      if (messageIds !== undefined) {
        const rows = await narrowQueryStore.messagesAmongIds(q, query, messageIds);
        const messages = await messagePayloads(q, user, realm, rows, narrow, options, ctx.config);
        return { found_anchor: false, found_newest: false, found_oldest: false, history_limited: false, messages };
      }
      let anchor = anchorValue;
      // A visitor has read everything (Zulip's find_first_unread_anchor without a user).
      if (anchor === null) anchor = (user && (await narrowQueryStore.firstUnreadId(q, query))) ?? LARGER_THAN_MAX_MESSAGE_ID;
      const anchoredToLeft = anchor === 0;
      const anchoredToRight = anchor === LARGER_THAN_MAX_MESSAGE_ID;
      const { before, after } = await narrowQueryStore.messagesAround(q, query, anchor, {
        before: numBefore,
        after: anchoredToRight ? 0 : numAfter + (includeAnchor ? 1 : 0),
        includeAnchor,
      });
      const anchorRows = after.filter((r) => r.message.id === anchor);
      const afterRows = after.filter((r) => r.message.id !== anchor).slice(0, numAfter);
      const rows = [...before, ...anchorRows, ...afterRows];
      return {
        anchor,
        found_anchor: anchorRows.length === 1,
        found_oldest: anchoredToLeft || before.length < numBefore,
        found_newest: anchoredToRight || afterRows.length < numAfter,
        history_limited: false,
        messages: await messagePayloads(q, user, realm, rows, narrow, options, ctx.config),
      };
    });
  },
});

async function messagePayloads(
  q: Executor,
  viewer: User | null,
  realm: Realm,
  rows: NarrowMessage[],
  narrow: BuiltNarrow,
  options: MessagePayloadOptions,
  config: UrlConfig,
): Promise<MessagePayload[]> {
  const builder = await MessagePayloadBuilder.load(
    q,
    realm,
    rows.map((r) => r.message),
  );
  // Visitors see every sender (Zulip's check_user_can_access_all_users without a user).
  const withAccess = { ...options, senderAccess: viewer ? await senderAccessFor(q, viewer, realm, realmUrl(config, realm)) : null };
  return rows.map(({ message, flags: bits }) => {
    const flags = viewer === null ? visitorFlags() : bits === null ? HISTORICAL_FLAGS : flagsToList(bits);
    const payload = builder.build(message, viewer?.id ?? null, flags, withAccess, viewer);
    if (narrow.searchWords) Object.assign(payload, searchFields(message.rendered_content ?? "", message.subject, narrow.searchWords));
    return payload;
  });
}

/** Zulip: for spectators, every message is read. */
const visitorFlags = () => ["read"];

/**
 * GET /messages/{message_id}. A visitor may fetch a message of a channel visitors may read (Zulip's
 * json_fetch_raw_message with access_web_public_message); any other id is Zulip's 401.
 */
export const getMessage = endpoint({
  auth: "visitor",
  params: {
    apply_markdown: p.bool().default(true),
    allow_empty_topic_name: p.bool().default(false),
  },
  handler: async ({ ctx, user, realm, params, path }) => {
    const messageId = pathParam.int(path.message_id, "message_id");
    const q = ctx.db.kysely;
    const { message, flags } = user
      ? await accessMessage(q, new AccessSubject(user), messageId)
      : { message: await accessMessageAsVisitor(q, realm.id, messageId), flags: null };
    const builder = await MessagePayloadBuilder.load(q, realm, [message]);
    const options = {
      applyMarkdown: params.apply_markdown,
      clientGravatar: true,
      allowEmptyTopicName: params.allow_empty_topic_name,
      senderAccess: user ? await senderAccessFor(q, user, realm, realmUrl(ctx.config, realm)) : null,
    };
    const flagList = user === null ? visitorFlags() : flags === null ? HISTORICAL_FLAGS : flagsToList(flags);
    return {
      message: builder.build(message, user?.id ?? null, flagList, options, user),
      raw_content: message.content,
    };
  },
});

/** GET /messages/matches_narrow: which of the user's messages match (Zulip: received messages only). */
export const messagesMatchNarrow = endpoint({
  auth: "user",
  params: {
    msg_ids: p.json(z.array(z.int())),
    narrow: p.json(narrowSchema),
  },
  handler: async ({ ctx, user, realm, params }) => {
    const q = ctx.db.kysely;
    const narrow = await buildNarrow({ q, subject: new AccessSubject(user), me: user, realmId: realm.id }, canonicalTerms(params.narrow));
    const query: NarrowQuery = { userId: user.id, realmId: realm.id, includeHistory: false, where: narrow.where, searchesText: narrow.searchWords !== null };
    const rows = await narrowQueryStore.messagesAmongIds(q, query, params.msg_ids);
    const result: Record<string, { match_content: string; match_subject: string }> = {};
    for (const { message } of rows) result[message.id] = searchFields(message.rendered_content ?? "", message.subject, narrow.searchWords ?? []);
    return { messages: result };
  },
});
