import type { Realm, Stream, User } from "../db/schema.js";
import { type AppContext, transaction } from "../appContext.js";
import type { BlobStorage } from "../blobs/storage.js";
import type { Executor, Tx } from "../db/tx.js";
import type { UploadedFile } from "../http/mount.js";
import {
  BadNameOrUsernameError,
  badRequest,
  InsufficientPermissionError,
  OrganizationAdministratorRequiredError,
  OrganizationOwnerRequiredError,
} from "../lib/errors.js";
import { generateApiKey } from "../lib/apiKeys.js";
import { type BotDict, buildBotDicts } from "../lib/botPayload.js";
import { EMBEDDED_BOTS } from "../lib/embeddedBots.js";
import { hasRealmPermission } from "../lib/realmPermissions.js";
import { accessStreamByName, AccessSubject } from "../lib/streamAccess.js";
import { BotType, isAdmin, isOwner, Role } from "../models/roles.js";
import { auditLogStore } from "../store/auditLog.js";
import { botServiceStore } from "../store/botServices.js";
import { userStore } from "../store/users.js";
import { type AvatarImages, botAvatarImages, checkBotAvatarFileCount, doChangeAvatarSource, storeAvatarImages } from "./avatars.js";
import { doCreateUser } from "./createUser.js";
import { checkFullName, doChangeFullName, doChangeUserRole, doDeactivateUser } from "./users.js";
import { requireMemberOrAdmin } from "../lib/userGroupAccess.js";
import { defined } from "../util/defined.js";

/**
 * Bots (Zulip's zerver/views/users.py add_bot_backend, patch_bot_backend, …): created by members
 * allowed by can_create_bots_group (incoming-webhook bots also by
 * can_create_write_only_bots_group), administered by their owner and by organization
 * administrators (Zulip's access_bot_by_id). Owners and administrators learn of every change
 * through realm_bot events; everyone through realm_user events.
 */
export const ServiceInterface = { GENERIC: 1, SLACK: 2 } as const;
const BOT_TYPES = new Set<number>([BotType.GENERIC, BotType.INCOMING_WEBHOOK, BotType.OUTGOING_WEBHOOK, BotType.EMBEDDED]);

/** Zulip's access_bot_by_id: the bot's owner or an administrator; "No such bot" otherwise missing. */
export async function accessBotById(tx: Tx, actor: User, botId: number): Promise<User> {
  requireMemberOrAdmin(actor);
  const bot = await userStore.getInRealm(tx.q, actor.realm_id, botId);
  if (!bot || !bot.is_bot) throw badRequest("No such bot");
  if (!isAdmin(actor) && bot.bot_owner_id !== actor.id) throw new InsufficientPermissionError();
  return bot;
}

/** Who hears about a bot's changes in realm_bot events: administrators and its owner. */
async function botAudience(tx: Tx, bot: User): Promise<number[]> {
  const audience = await userStore.listActiveAdminIds(tx.q, bot.realm_id);
  if (bot.bot_owner_id !== null) audience.push(bot.bot_owner_id);
  return audience;
}

async function sendBotUpdate(tx: Tx, bot: User, fields: Record<string, unknown>): Promise<void> {
  tx.sendEventOnCommit({ type: "realm_bot", op: "update", bot: { user_id: bot.id, ...fields } }, await botAudience(tx, bot));
}

function checkInterfaceType(value: number): number {
  if (value !== ServiceInterface.GENERIC && value !== ServiceInterface.SLACK) throw badRequest("Invalid interface type");
  return value;
}

/** An outgoing webhook's URL: http or https (Zulip's check_url). */
function checkServiceUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badRequest(`${name} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw badRequest(`${name} is not a URL`);
  return value;
}

async function defaultStream(tx: Tx, actor: User, name: string | undefined | null): Promise<Stream | null | undefined> {
  if (name === undefined || name === null) return undefined;
  if (name === "") return null;
  return (await accessStreamByName(tx.q, new AccessSubject(actor), name, "content", { invalidNameError: true })).stream;
}

export interface CreateBotRequest {
  fullName: string;
  shortName: string;
  botType: number;
  payloadUrl: string;
  interfaceType: number;
  /** Embedded bots: which one (Zulip's service_name). */
  serviceName?: string;
  defaultSendingStream?: string;
  defaultEventsRegisterStream?: string;
  defaultAllPublicStreams?: boolean;
}

interface PreparedBot {
  email: string;
  fullName: string;
  serviceName: string;
  sending: Stream | null | undefined;
  registering: Stream | null | undefined;
}

/** Every check of POST /bots, in Zulip's order (the avatar's file count among them), before anything is written. */
async function prepareCreateBot(tx: Tx, actor: User, realm: Realm, botDomain: string, req: CreateBotRequest, fileCount: number): Promise<PreparedBot> {
  requireMemberOrAdmin(actor);
  const shortName = req.shortName.trim();
  if (shortName === "" || !/^[A-Za-z0-9._+-]+$/.test(shortName)) throw new BadNameOrUsernameError();
  const fullName = checkFullName(req.fullName);
  const email = `${shortName}-bot@${botDomain}`.toLowerCase();
  if (email.length > 254) throw new BadNameOrUsernameError();
  if (await userStore.getByEmail(tx.q, realm.id, email)) throw badRequest("Username already in use");
  if (await userStore.activeFullNameTaken(tx.q, realm.id, fullName)) throw badRequest("Name is already in use!");
  const subject = new AccessSubject(actor);
  const allowed =
    (await hasRealmPermission(tx.q, subject, realm, "can_create_bots_group")) ||
    (req.botType === BotType.INCOMING_WEBHOOK && (await hasRealmPermission(tx.q, subject, realm, "can_create_write_only_bots_group")));
  if (!BOT_TYPES.has(req.botType)) throw badRequest("Invalid bot type");
  if (!allowed) throw new InsufficientPermissionError();
  checkInterfaceType(req.interfaceType);
  checkBotAvatarFileCount(fileCount);
  if (req.botType === BotType.OUTGOING_WEBHOOK) checkServiceUrl("payload_url", req.payloadUrl);
  const serviceName = req.serviceName ?? shortName;
  if (req.botType === BotType.EMBEDDED && !(serviceName in EMBEDDED_BOTS)) throw badRequest("Invalid embedded bot name.");
  const sending = await defaultStream(tx, actor, req.defaultSendingStream);
  const registering = await defaultStream(tx, actor, req.defaultEventsRegisterStream);
  return { email, fullName, serviceName, sending, registering };
}

/**
 * POST /bots (Zulip's add_bot_backend). The body may carry the bot's avatar as its one file
 * (more: "You may only upload one file at a time"); the bot is then created with it, its images
 * stored in the creating transaction, so no bot exists without the avatar its URL names.
 */
export async function checkCreateBot(ctx: AppContext, actor: User, realm: Realm, botDomain: string, req: CreateBotRequest, files: readonly UploadedFile[]) {
  // Zulip answers every other error before one about the image, which is resized outside any transaction.
  if (files.length > 0) await transaction(ctx, (tx) => prepareCreateBot(tx, actor, realm, botDomain, req, files.length));
  const avatar = await botAvatarImages(files);
  return transaction(ctx, async (tx) =>
    doCreateBot(tx, ctx.blobs, actor, realm, req, await prepareCreateBot(tx, actor, realm, botDomain, req, files.length), avatar),
  );
}

async function doCreateBot(tx: Tx, blobs: BlobStorage, actor: User, realm: Realm, req: CreateBotRequest, bot: PreparedBot, avatar: AvatarImages | undefined) {
  const { sending, registering } = bot;
  const inserted = await doCreateUser(tx, realm, {
    email: bot.email,
    full_name: bot.fullName,
    password_hash: null,
    is_bot: true,
    bot_type: req.botType,
    bot_owner_id: actor.id,
    avatar_source: avatar ? "U" : "G",
    acting_user_id: actor.id,
  });
  if (avatar) await storeAvatarImages(blobs, inserted, avatar);
  const defaults = {
    default_sending_stream_id: sending?.id ?? null,
    default_events_register_stream_id: registering?.id ?? null,
    default_all_public_streams: req.defaultAllPublicStreams ? (1 as const) : (0 as const),
  };
  await userStore.update(tx.q, inserted.id, defaults);
  const created: User = { ...inserted, ...defaults };
  if (req.botType === BotType.OUTGOING_WEBHOOK || req.botType === BotType.EMBEDDED) {
    const baseUrl = req.botType === BotType.EMBEDDED ? "" : req.payloadUrl;
    await botServiceStore.insert(tx.q, { bot_id: created.id, name: bot.serviceName, base_url: baseUrl, interface: req.interfaceType, token: generateApiKey() });
  }
  const dict = await buildBotDict(tx.q, actor, created);
  tx.sendEventOnCommit({ type: "realm_bot", op: "add", bot: dict }, await botAudience(tx, created));
  return {
    user_id: created.id,
    api_key: created.api_key,
    avatar_url: dict.avatar_url,
    default_sending_stream: dict.default_sending_stream,
    default_events_register_stream: dict.default_events_register_stream,
    default_all_public_streams: dict.default_all_public_streams,
  };
}

/**
 * GET /bots: the caller's own active bots, oldest first, with Zulip's fields (get_bots_backend:
 * username, full_name, api_key, avatar_url and the three defaults) and two more that Zulip's
 * answer lacks: user_id, which PATCH and DELETE /bots/{bot_id} need, and services, as in realm_bots.
 */
export async function listOwnBots(tx: Tx, actor: User) {
  requireMemberOrAdmin(actor);
  const bots = (await userStore.listActiveBotsOwnedBy(tx.q, actor.id)).sort((a, b) => a.date_joined - b.date_joined || a.id - b.id);
  const dicts = await buildBotDicts(tx.q, actor, bots);
  return dicts.map((d) => ({
    username: d.email,
    full_name: d.full_name,
    api_key: d.api_key,
    avatar_url: d.avatar_url,
    default_sending_stream: d.default_sending_stream,
    default_events_register_stream: d.default_events_register_stream,
    default_all_public_streams: d.default_all_public_streams,
    user_id: d.user_id,
    services: d.services,
  }));
}

export interface UpdateBotRequest {
  fullName?: string;
  role?: number;
  botOwnerId?: number;
  servicePayloadUrl?: string;
  serviceInterface: number;
  defaultSendingStream?: string;
  defaultEventsRegisterStream?: string;
  defaultAllPublicStreams?: boolean;
}

interface PreparedBotUpdate {
  bot: User;
  fullName: string | undefined;
  owner: User | undefined;
  sending: Stream | null | undefined;
  registering: Stream | null | undefined;
}

/** Every check of PATCH /bots/{bot_id}, in Zulip's order (the avatar's file count last), before anything is written. */
async function prepareUpdateBot(tx: Tx, actor: User, botId: number, req: UpdateBotRequest, fileCount: number): Promise<PreparedBotUpdate> {
  const bot = await accessBotById(tx, actor, botId);
  const fullName = req.fullName === undefined ? undefined : checkFullName(req.fullName);
  if (fullName !== undefined && fullName !== bot.full_name && (await userStore.activeFullNameTaken(tx.q, bot.realm_id, fullName))) {
    throw badRequest("Name is already in use!");
  }
  if (req.role !== undefined && req.role !== bot.role) {
    if ((req.role === Role.OWNER || bot.role === Role.OWNER) && !isOwner(actor)) throw new OrganizationOwnerRequiredError();
    if (!isAdmin(actor)) throw new OrganizationAdministratorRequiredError();
  }
  let owner: User | undefined;
  if (req.botOwnerId !== undefined) {
    owner = await userStore.getInRealm(tx.q, bot.realm_id, req.botOwnerId);
    if (!owner) throw badRequest("Failed to change owner, no such user");
    if (!owner.is_active) throw badRequest("Failed to change owner, user is deactivated");
    if (owner.is_bot) throw badRequest("Failed to change owner, bots can't own other bots");
  }
  if (req.servicePayloadUrl !== undefined) {
    checkServiceUrl("service_payload_url", req.servicePayloadUrl);
    checkInterfaceType(req.serviceInterface);
  }
  const sending = await defaultStream(tx, actor, req.defaultSendingStream);
  const registering = await defaultStream(tx, actor, req.defaultEventsRegisterStream);
  checkBotAvatarFileCount(fileCount);
  return { bot, fullName, owner, sending, registering };
}

/**
 * PATCH /bots/{bot_id} (Zulip's patch_bot_backend), by the bot's owner or an administrator
 * (accessBotById). The body may carry a new avatar as its one file: stored, then Zulip's
 * do_change_avatar_fields (realm_user and realm_bot updates with the new URL).
 */
export async function checkUpdateBot(ctx: AppContext, actor: User, botId: number, req: UpdateBotRequest, files: readonly UploadedFile[]) {
  // Zulip answers every other error before one about the image, which is resized outside any transaction.
  if (files.length > 0) await transaction(ctx, (tx) => prepareUpdateBot(tx, actor, botId, req, files.length));
  const avatar = await botAvatarImages(files);
  return transaction(ctx, async (tx) => doUpdateBot(tx, ctx.blobs, actor, req, await prepareUpdateBot(tx, actor, botId, req, files.length), avatar));
}

/** Everything was checked (prepareUpdateBot); the changes in Zulip's order, each with its events. */
async function doUpdateBot(tx: Tx, blobs: BlobStorage, actor: User, req: UpdateBotRequest, update: PreparedBotUpdate, avatar: AvatarImages | undefined) {
  const { bot, fullName, owner, sending, registering } = update;
  let current = bot;
  if (fullName !== undefined && fullName !== bot.full_name) {
    await doChangeFullName(tx, bot, fullName, actor);
    await sendBotUpdate(tx, bot, { full_name: fullName });
    current = { ...current, full_name: fullName };
  }
  if (req.role !== undefined) await doChangeUserRole(tx, bot, req.role, actor);
  if (owner && owner.id !== bot.bot_owner_id) {
    const previousAudience = await botAudience(tx, current);
    await userStore.update(tx.q, bot.id, { bot_owner_id: owner.id });
    current = { ...current, bot_owner_id: owner.id };
    await auditLogStore.insert(tx.q, { realm_id: bot.realm_id, event_type: "user_bot_owner_changed", acting_user_id: actor.id, modified_user_id: bot.id });
    // The previous owner no longer sees the bot; the new one gets all of it.
    const newAudience = await botAudience(tx, current);
    const leaving = previousAudience.filter((id) => !newAudience.includes(id));
    const joining = newAudience.filter((id) => !previousAudience.includes(id));
    if (leaving.length > 0) tx.sendEventOnCommit({ type: "realm_bot", op: "delete", bot: { user_id: bot.id } }, leaving);
    const dict = await buildBotDict(tx.q, actor, current);
    if (joining.length > 0) tx.sendEventOnCommit({ type: "realm_bot", op: "add", bot: dict }, joining);
    tx.sendEventOnCommit(
      { type: "realm_bot", op: "update", bot: { user_id: bot.id, owner_id: owner.id } },
      newAudience.filter((id) => !joining.includes(id)),
    );
    tx.sendEventOnCommit(
      { type: "realm_user", op: "update", person: { user_id: bot.id, bot_owner_id: owner.id } },
      await userStore.listActiveIds(tx.q, bot.realm_id),
    );
  }
  const defaults: Partial<Pick<User, "default_sending_stream_id" | "default_events_register_stream_id" | "default_all_public_streams">> = {};
  if (sending !== undefined) defaults.default_sending_stream_id = sending?.id ?? null;
  if (registering !== undefined) defaults.default_events_register_stream_id = registering?.id ?? null;
  if (req.defaultAllPublicStreams !== undefined) defaults.default_all_public_streams = req.defaultAllPublicStreams ? 1 : 0;
  if (Object.keys(defaults).length > 0) {
    await userStore.update(tx.q, bot.id, defaults);
    current = { ...current, ...defaults };
    const dict = await buildBotDict(tx.q, actor, current);
    const fields: Record<string, unknown> = {};
    if (sending !== undefined) fields.default_sending_stream = dict.default_sending_stream;
    if (registering !== undefined) fields.default_events_register_stream = dict.default_events_register_stream;
    if (req.defaultAllPublicStreams !== undefined) fields.default_all_public_streams = dict.default_all_public_streams;
    await sendBotUpdate(tx, current, fields);
  }
  if (req.servicePayloadUrl !== undefined) {
    await botServiceStore.updateForBot(tx.q, bot.id, { base_url: req.servicePayloadUrl, interface: req.serviceInterface });
    const dict = await buildBotDict(tx.q, actor, current);
    await sendBotUpdate(tx, current, { services: dict.services });
  }
  if (avatar) {
    await storeAvatarImages(blobs, bot, avatar);
    current = await doChangeAvatarSource(tx, current, "U", actor);
  }
  const dict = await buildBotDict(tx.q, actor, current);
  const result: Record<string, unknown> = {
    full_name: dict.full_name,
    avatar_url: dict.avatar_url,
    service_interface: req.serviceInterface,
    service_payload_url: req.servicePayloadUrl ?? null,
    config_data: null,
    default_sending_stream: dict.default_sending_stream,
    default_events_register_stream: dict.default_events_register_stream,
    default_all_public_streams: dict.default_all_public_streams,
  };
  if (current.bot_owner_id !== null) result.bot_owner = (await userStore.getById(tx.q, current.bot_owner_id))?.email;
  return result;
}

/** POST /bots/{bot_id}/api_key/regenerate */
export async function checkRegenerateBotApiKey(tx: Tx, actor: User, botId: number): Promise<string> {
  const bot = await accessBotById(tx, actor, botId);
  const apiKey = generateApiKey();
  await userStore.update(tx.q, bot.id, { api_key: apiKey });
  await auditLogStore.insert(tx.q, { realm_id: bot.realm_id, acting_user_id: actor.id, modified_user_id: bot.id, event_type: "user_api_key_changed" });
  await sendBotUpdate(tx, bot, { api_key: apiKey });
  return apiKey;
}

/** DELETE /bots/{bot_id} */
export async function checkDeactivateBot(tx: Tx, actor: User, botId: number): Promise<void> {
  const bot = await accessBotById(tx, actor, botId);
  if (!bot.is_active) throw badRequest("Bot is already deactivated");
  await doDeactivateUser(tx, bot, actor);
}

/** The bot's dict as `viewer` sees it (buildBotDicts for one bot). */
async function buildBotDict(q: Executor, viewer: User, bot: User): Promise<BotDict> {
  const [dict] = await buildBotDicts(q, viewer, [bot]);
  return defined(dict, `the dict of bot ${bot.id}`);
}
