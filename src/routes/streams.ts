import { transaction } from "../appContext.js";
import { checkAddDefaultStream, checkDeactivateStream, checkRemoveDefaultStream, checkUpdateStream } from "../actions/streams.js";
import { checkGetChannelEmailAddress } from "../actions/channelEmailAddresses.js";
import { endpoint } from "../http/endpoint.js";
import { badRequest } from "../lib/errors.js";
import { p, pathParam } from "../http/params.js";
import { groupSettingChangeSchema, STREAM_GROUP_SETTING_NAMES } from "../lib/groupSettings.js";
import { requireAdministrator } from "../lib/access.js";
import { AccessSubject, accessStreamById, accessStreamByName } from "../lib/streamAccess.js";
import { buildStreamPayload, loadStreamPayloadContext } from "../lib/streamPayload.js";
import { streamsForUser } from "../lib/streamListing.js";
import { isAdmin } from "../models/roles.js";
import { streamStore } from "../store/streams.js";
import { subscriptionStore } from "../store/subscriptions.js";
import { MAX_STREAM_DESCRIPTION_LENGTH } from "../models/limits.js";

const streamIdOf = (path: Record<string, string>) => pathParam.int(path.stream_id, "stream_id");

/** GET /streams */
export const getStreams = endpoint({
  auth: "user",
  params: {
    include_public: p.bool().default(true),
    include_web_public: p.bool().default(false),
    include_subscribed: p.bool().default(true),
    exclude_archived: p.bool().default(true),
    include_all: p.bool().default(false),
    include_all_active: p.bool().default(false),
    include_default: p.bool().default(false),
    include_owner_subscribed: p.bool().default(false),
    include_can_access_content: p.bool().default(false),
  },
  handler: async ({ ctx, user, params }) => {
    if (params.include_all_active && !isAdmin(user)) throw badRequest("User not authorized for this query");
    const q = ctx.db.kysely;
    const streams = await streamsForUser(q, user, { ...params, include_all: params.include_all || params.include_all_active });
    const payloadCtx = await loadStreamPayloadContext(q, user.realm_id, streams);
    const defaults = params.include_default ? await streamStore.defaultStreamIds(q, user.realm_id) : null;
    const payloads = streams.map((s) => ({ ...buildStreamPayload(s, payloadCtx), ...(defaults ? { is_default: defaults.has(s.id) } : {}) }));
    return { streams: payloads.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) };
  },
});

/** GET /streams/{stream_id} */
export const getStream = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, path }) => {
    const q = ctx.db.kysely;
    const { stream } = await accessStreamById(q, new AccessSubject(user), streamIdOf(path), "metadata", { requireActive: true });
    return { stream: buildStreamPayload(stream, await loadStreamPayloadContext(q, user.realm_id, [stream])) };
  },
});

/** GET /get_stream_id */
export const getStreamId = endpoint({
  auth: "user",
  params: { stream: p.string() },
  handler: async ({ ctx, user, params }) => {
    const access = await accessStreamByName(ctx.db.kysely, new AccessSubject(user), params.stream, "content", { requireActive: true, invalidNameError: true });
    return { stream_id: access.stream.id };
  },
});

/** GET /streams/{stream_id}/members */
export const getSubscribers = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, path }) => {
    const q = ctx.db.kysely;
    const { stream } = await accessStreamById(q, new AccessSubject(user), streamIdOf(path), "metadata", { requireActive: true });
    return { subscribers: (await subscriptionStore.subscriberIds(q, [stream.recipient_id])).get(stream.recipient_id)! };
  },
});

/** GET /streams/{stream_id}/email_address */
export const getStreamEmailAddress = endpoint({
  auth: "user",
  params: { sender_id: p.int({ min: 0 }).optional() },
  handler: async ({ ctx, user, path, params }) => {
    const domain = ctx.config.emailGateway?.domain;
    const email = await transaction(ctx, (tx) => checkGetChannelEmailAddress(tx, user, streamIdOf(path), params.sender_id, domain));
    return { email };
  },
});

const groupChangeParam = p.json(groupSettingChangeSchema).optional();

/** PATCH /streams/{stream_id} */
export const updateStream = endpoint({
  auth: "user",
  params: {
    new_name: p.string({ trim: false }).optional(),
    description: p.string({ trim: false, maxLength: MAX_STREAM_DESCRIPTION_LENGTH }).optional(),
    is_private: p.bool().optional(),
    is_web_public: p.bool().optional(),
    history_public_to_subscribers: p.bool().optional(),
    is_default_stream: p.bool().optional(),
    message_retention_days: p.textOrJson().optional(),
    is_archived: p.bool().optional(),
    can_add_subscribers_group: groupChangeParam,
    can_administer_channel_group: groupChangeParam,
    can_remove_subscribers_group: groupChangeParam,
    can_send_message_group: groupChangeParam,
    can_subscribe_group: groupChangeParam,
  },
  handler: async ({ ctx, user, realm, path, params }) => {
    const groupSettings = Object.fromEntries(STREAM_GROUP_SETTING_NAMES.filter((n) => params[n] !== undefined).map((n) => [n, params[n]!]));
    await transaction(ctx, async (tx) => {
      const subject = new AccessSubject(user);
      const access = await accessStreamById(tx.q, subject, streamIdOf(path), "administer");
      await checkUpdateStream(tx, subject, realm, access, { ...params, groupSettings });
    });
  },
});

/** DELETE /streams/{stream_id} */
export const deactivateStream = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, realm, path }) => {
    await transaction(ctx, async (tx) => {
      const access = await accessStreamById(tx.q, new AccessSubject(user), streamIdOf(path), "administer");
      await checkDeactivateStream(tx, realm, access, user);
    });
  },
});

/** POST /default_streams */
export const addDefaultStream = endpoint({
  auth: "user",
  params: { stream_id: p.int() },
  handler: async ({ ctx, user, realm, params }) => {
    requireAdministrator(user);
    await transaction(ctx, async (tx) => {
      const access = await accessStreamById(tx.q, new AccessSubject(user), params.stream_id, "content", { requireActive: true });
      await checkAddDefaultStream(tx, realm, access);
    });
  },
});

/** DELETE /default_streams */
export const removeDefaultStream = endpoint({
  auth: "user",
  params: { stream_id: p.int() },
  handler: async ({ ctx, user, realm, params }) => {
    requireAdministrator(user);
    await transaction(ctx, async (tx) => {
      const access = await accessStreamById(tx.q, new AccessSubject(user), params.stream_id, "metadata");
      await checkRemoveDefaultStream(tx, realm, access);
    });
  },
});
