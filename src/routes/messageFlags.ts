import * as z from "zod";
import { transaction } from "../appContext.js";
import {
  checkFlagChange,
  checkUpdateMessageFlagsForNarrow,
  doMarkAllAsReadBatch,
  doMarkStreamMessagesAsRead,
  doUpdateMessageFlags,
  LARGER_THAN_MAX_MESSAGE_ID,
} from "../actions/messageFlags.js";
import { topicFromInput } from "../actions/userTopics.js";
import { endpoint } from "../http/endpoint.js";
import { badRequest } from "../lib/errors.js";
import { p } from "../http/params.js";
import { canonicalTerms, narrowSchema } from "../lib/narrow/index.js";
import { accessStreamById, AccessSubject } from "../lib/streamAccess.js";
import { userMessageFlagStore } from "../store/userMessages.js";

/** POST /messages/flags. `messages` echoes the request, as Zulip does ("useless, but included"). */
export const updateMessageFlags = endpoint({
  auth: "user",
  params: {
    messages: p.json(z.array(z.int())),
    op: p.string(),
    flag: p.string(),
  },
  handler: async ({ ctx, user, params }) => {
    const change = checkFlagChange(params.op, params.flag);
    const { ignoredChannelIds } = await transaction(ctx, (tx) => doUpdateMessageFlags(tx, user, change, params.messages));
    const markingUnread = params.flag === "read" && params.op === "remove";
    return { messages: params.messages, ...(markingUnread ? { ignored_because_not_subscribed_channels: ignoredChannelIds } : {}) };
  },
});

/** Zulip's parse_anchor_value without use_first_unread_anchor: null means first unread. */
function parseAnchor(value: string): number | null {
  if (value === "newest") return LARGER_THAN_MAX_MESSAGE_ID;
  if (value === "oldest") return 0;
  if (value === "first_unread") return null;
  if (!/^\s*[-+]?\d+\s*$/.test(value)) throw badRequest("Invalid anchor");
  return Math.min(Math.max(Number(value), 0), LARGER_THAN_MAX_MESSAGE_ID);
}

/** POST /messages/flags/narrow */
export const updateMessageFlagsForNarrow = endpoint({
  auth: "user",
  params: {
    anchor: p.string(),
    include_anchor: p.bool().default(true),
    num_before: p.int({ min: 0 }),
    num_after: p.int({ min: 0 }),
    narrow: p.json(narrowSchema.nullable()),
    op: p.string(),
    flag: p.string(),
  },
  handler: async ({ ctx, user, realm, params }) => {
    const anchor = parseAnchor(params.anchor);
    return transaction(ctx, (tx) =>
      checkUpdateMessageFlagsForNarrow(tx, user, realm, {
        anchor,
        includeAnchor: params.include_anchor,
        numBefore: params.num_before,
        numAfter: params.num_after,
        terms: canonicalTerms(params.narrow ?? []),
        op: params.op,
        flag: params.flag,
      }),
    );
  },
});

/** Zulip marks 2,000 messages per transaction and stops after 50 s, answering complete: false. */
const MARK_ALL_BATCH_SIZE = 2000;
const MARK_ALL_TIME_LIMIT_MS = 50_000;

/** POST /mark_all_as_read (deprecated) */
export const markAllAsRead = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user }) => {
    const deadline = Date.now() + MARK_ALL_TIME_LIMIT_MS;
    for (;;) {
      if (Date.now() >= deadline) return { complete: false };
      const marked = await transaction(ctx, (tx) => doMarkAllAsReadBatch(tx, user, MARK_ALL_BATCH_SIZE));
      if (marked < MARK_ALL_BATCH_SIZE) return { complete: true };
    }
  },
});

/** POST /mark_stream_as_read (deprecated) */
export const markStreamAsRead = endpoint({
  auth: "user",
  params: { stream_id: p.int() },
  handler: async ({ ctx, user, params }) => {
    await transaction(ctx, async (tx) => {
      const { stream } = await accessStreamById(tx.q, new AccessSubject(user), params.stream_id, "content", { requireActive: true });
      await doMarkStreamMessagesAsRead(tx, user, stream.recipient_id);
    });
  },
});

/** POST /mark_topic_as_read (deprecated). Only topics the user received messages in exist for it. */
export const markTopicAsRead = endpoint({
  auth: "user",
  params: { stream_id: p.int(), topic_name: p.string({ trim: false }) },
  handler: async ({ ctx, user, params }) => {
    await transaction(ctx, async (tx) => {
      const { stream } = await accessStreamById(tx.q, new AccessSubject(user), params.stream_id, "content", { requireActive: true });
      const topic = topicFromInput(params.topic_name);
      if (topic !== "" && !(await userMessageFlagStore.receivedInTopic(tx.q, user.id, stream.recipient_id, topic))) {
        throw badRequest(`No such topic '${topic}'`);
      }
      await doMarkStreamMessagesAsRead(tx, user, stream.recipient_id, topic);
    });
  },
});
