import * as z from "zod";
import { transaction } from "../appContext.js";
import { checkAddSubscriptions, checkRemoveSubscriptions, checkUpdateSubscriptionProperties } from "../actions/subscriptions.js";
import { endpoint } from "../http/endpoint.js";
import { p, pathParam } from "../http/params.js";
import { badRequest } from "../lib/errors.js";
import { accessUserById } from "../lib/access.js";
import { groupSettingValueSchema, STREAM_GROUP_SETTING_NAMES } from "../lib/groupSettings.js";
import { AccessSubject, accessStreamById } from "../lib/streamAccess.js";
import { buildSubscriptionPayload, loadStreamPayloadContext } from "../lib/streamPayload.js";
import { streamStore } from "../store/streams.js";
import { subscriptionStore } from "../store/subscriptions.js";
import { MAX_STREAM_DESCRIPTION_LENGTH } from "../models/limits.js";

const principalsParam = p.json(z.union([z.array(z.string()), z.array(z.int())])).optional();
const groupSettingParam = p.json(groupSettingValueSchema).optional();
const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** GET /users/me/subscriptions */
export const listSubscriptions = endpoint({
  auth: "user",
  params: { include_subscribers: p.bool().default(false) },
  handler: async ({ ctx, user, params }) => {
    const q = ctx.db.kysely;
    const subs = await subscriptionStore.listActiveForUser(q, user.id);
    const streams = (
      await streamStore.listByRecipientIds(
        q,
        user.realm_id,
        subs.map((s) => s.recipient_id),
      )
    ).filter((s) => !s.is_archived);
    const payloadCtx = await loadStreamPayloadContext(q, user.realm_id, streams);
    const subscribers = params.include_subscribers
      ? await subscriptionStore.subscriberIds(
          q,
          streams.map((s) => s.recipient_id),
        )
      : null;
    const subscriptions = streams.map((stream) =>
      buildSubscriptionPayload(
        stream,
        subs.find((s) => s.recipient_id === stream.recipient_id)!,
        payloadCtx,
        subscribers?.get(stream.recipient_id),
      ),
    );
    return { subscriptions: subscriptions.sort(byName) };
  },
});

/** POST /users/me/subscriptions */
export const addSubscriptions = endpoint({
  auth: "user",
  params: {
    subscriptions: p.json(
      z.array(z.object({ name: z.string(), description: z.string().max(MAX_STREAM_DESCRIPTION_LENGTH).optional(), color: z.string().optional() })),
    ),
    principals: principalsParam,
    authorization_errors_fatal: p.bool().default(true),
    announce: p.bool().default(false),
    invite_only: p.bool().default(false),
    is_web_public: p.bool().default(false),
    is_default_stream: p.bool().default(false),
    history_public_to_subscribers: p.bool().optional(),
    message_retention_days: p.textOrJson().default("realm_default"),
    can_add_subscribers_group: groupSettingParam,
    can_administer_channel_group: groupSettingParam,
    can_remove_subscribers_group: groupSettingParam,
    can_send_message_group: groupSettingParam,
    can_subscribe_group: groupSettingParam,
  },
  handler: async ({ ctx, user, realm, params }) => {
    const groupSettings = Object.fromEntries(STREAM_GROUP_SETTING_NAMES.filter((n) => params[n] !== undefined).map((n) => [n, params[n]!]));
    return transaction(ctx, (tx) => checkAddSubscriptions(tx, new AccessSubject(user), realm, { ...params, groupSettings }));
  },
});

/** DELETE /users/me/subscriptions */
export const removeSubscriptions = endpoint({
  auth: "user",
  params: { subscriptions: p.json(z.array(z.string())), principals: principalsParam },
  handler: async ({ ctx, user, realm, params }) =>
    transaction(ctx, (tx) => checkRemoveSubscriptions(tx, new AccessSubject(user), realm, params.subscriptions, params.principals)),
});

/**
 * PATCH /users/me/subscriptions (Zulip's update_subscriptions_backend): subscribe to `add` and
 * unsubscribe from `delete` in one transaction, with POST's and DELETE's defaults; the answer
 * merges theirs.
 */
export const updateSubscriptions = endpoint({
  auth: "user",
  params: {
    delete: p.json(z.array(z.string())).default([]),
    add: p
      .json(z.array(z.strictObject({ name: z.string(), color: z.string().optional(), description: z.string().max(MAX_STREAM_DESCRIPTION_LENGTH).optional() })))
      .default([]),
  },
  handler: async ({ ctx, user, realm, params }) => {
    if (params.add.length === 0 && params.delete.length === 0) throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
    return transaction(ctx, async (tx) => {
      const subject = new AccessSubject(user);
      const added = await checkAddSubscriptions(tx, subject, realm, {
        subscriptions: params.add,
        authorization_errors_fatal: true,
        announce: false,
        invite_only: false,
        is_web_public: false,
        is_default_stream: false,
        message_retention_days: "realm_default",
        groupSettings: {},
      });
      const removed =
        params.delete.length > 0 ? await checkRemoveSubscriptions(tx, subject, realm, params.delete, undefined) : { removed: [], not_removed: [] };
      return { ...added, ...removed };
    });
  },
});

/** POST /users/me/subscriptions/properties */
export const updateSubscriptionProperties = endpoint({
  auth: "user",
  params: {
    subscription_data: p.json(z.array(z.object({ stream_id: z.int(), property: z.string(), value: z.union([z.boolean(), z.string()]) }))),
  },
  handler: async ({ ctx, user, params }) => {
    await transaction(ctx, (tx) => checkUpdateSubscriptionProperties(tx, new AccessSubject(user), params.subscription_data));
  },
});

/** GET /users/{user_id}/subscriptions/{stream_id} */
export const getSubscriptionStatus = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, path }) => {
    const q = ctx.db.kysely;
    const target = await accessUserById(q, user, pathParam.int(path.user_id_or_email, "user_id"), { forAdministration: false });
    const { stream } = await accessStreamById(q, new AccessSubject(user), pathParam.int(path.stream_id, "stream_id"), "metadata", { requireActive: true });
    return { is_subscribed: (await subscriptionStore.getActive(q, target.id, stream.recipient_id)) !== undefined };
  },
});
