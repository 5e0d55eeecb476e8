import type { User } from "../../db/schema.js";
import type { Executor } from "../../db/tx.js";
import { ApiError, MissingAuthenticationError } from "../errors.js";
import { ANY_MENTION_FLAGS, MessageFlag } from "../../models/messageFlags.js";
import { isGuest } from "../../models/roles.js";
import { directMessageGroupStore } from "../../store/directMessageGroups.js";
import { userStore } from "../../store/users.js";
import { findUserByEmail } from "../access.js";
import { type ChannelReadability, historyIsPublic } from "../messageAccess.js";
import { accessStreamById, accessStreamByName, type AccessSubject, type ChannelAccess } from "../streamAccess.js";
import type { Operand } from "./parse.js";
import { searchWords } from "./search.js";
import { type Condition, narrowSql } from "../../store/narrowConditions.js";
import { RESOLVED_TOPIC_PREFIX } from "../../contract/constants.js";
import { systemBotStore } from "../../store/systemBots.js";
import { foldCase } from "../../util/foldCase.js";
import { SYSTEM_BOT_REALM } from "../../models/systemBots.js";

/**
 * One builder per narrow operator (Zulip's NarrowBuilder.by_*). Each turns an operand into a
 * condition on `m` (messages) and `um` (the user's user_messages row, null for public history
 * the user did not receive), or throws BAD_NARROW with Zulip's text. Negation is applied by the
 * caller, in one place. `history` says the term allows searching the channel's whole history.
 */
export type { Condition };

export interface NarrowContext {
  q: Executor;
  /** The reader's access, or null for a visitor (Zulip's spectator: user_profile None). */
  subject: AccessSubject | null;
  /** The reader, or null for a visitor. */
  me: User | null;
  realmId: number;
}

/** The reader of a narrow only a user may use; visitors never get this far (GET /messages refuses their other operators). */
function userOf(ctx: NarrowContext): User {
  if (ctx.me === null) throw new MissingAuthenticationError();
  return ctx.me;
}

/** What buildNarrow hands the builders: the caller's context and the user's access to every channel. */
export interface BuildContext extends NarrowContext {
  channels: ChannelReadability;
}

export interface Built {
  where: Condition;
  /** This (non-negated) term makes messages the user did not receive visible (Zulip's ok_to_include_history). */
  history?: boolean;
  /** This term needs the user's own rows (flags): no history. */
  personalOnly?: boolean;
  searchWords?: string[];
}

export class BadNarrowError extends ApiError {
  constructor(desc: string) {
    super(`Invalid narrow operator: ${desc}`, { code: "BAD_NARROW", data: { desc } });
  }
}

/**
 * The channel the operand names, if the user may see it (accessStreamById/ByName's "metadata"
 * rule). Found among the realm's channels already loaded for the access rules, by id or by exact
 * name; another spelling of a name is left to the database, whose lower() decides which
 * spellings match.
 */
async function channelFor(ctx: BuildContext, operand: Operand): Promise<ChannelAccess> {
  const channels = [...ctx.channels.byStreamId.values()];
  const known =
    typeof operand === "number"
      ? ctx.channels.byStreamId.get(operand)
      : typeof operand === "string"
        ? channels.find((c) => c.stream.name === operand)
        : undefined;
  if (known?.canSeeMetadata) return known;
  if (ctx.subject === null) {
    // A visitor (Zulip's by_channel with is_web_public_query). Missing and not web-public look alike.
    const folded = typeof operand === "string" ? foldCase(operand) : null;
    const found = known ?? channels.find((c) => folded !== null && foldCase(c.stream.name) === folded);
    if (found?.canSeeMetadata) return found;
    throw new BadNarrowError(`unknown web-public channel ${String(operand)}`);
  }
  try {
    if (typeof operand === "number" && !known) return await accessStreamById(ctx.q, ctx.subject, operand);
    if (typeof operand === "string" && !known) return await accessStreamByName(ctx.q, ctx.subject, operand);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
  }
  throw new BadNarrowError(`unknown channel ${String(operand)}`);
}

export async function byChannel(ctx: BuildContext, operand: Operand): Promise<Built> {
  const access = await channelFor(ctx, operand);
  return {
    where: narrowSql.recipient(access.stream.recipient_id),
    history: access.canReadContent && historyIsPublic(access.stream),
  };
}

export async function byChannels(ctx: NarrowContext, operand: Operand): Promise<Built> {
  // Visitors read history (they have no messages of their own); guests do not.
  const history = ctx.me === null || !isGuest(ctx.me);
  if (operand === "public") return { where: narrowSql.realmChannels(ctx.realmId, "public"), history };
  if (operand === "web-public") return { where: narrowSql.realmChannels(ctx.realmId, "web-public"), history };
  throw new BadNarrowError(`unknown channels operand ${String(operand)}`);
}

export function byTopic(_ctx: NarrowContext, operand: Operand): Built {
  if (typeof operand !== "string") throw new BadNarrowError("invalid topic operand");
  return { where: narrowSql.topic(operand) };
}

/** A user of the viewer's realm, or a cross-realm system bot (Notification Bot and friends). */
async function userFor(ctx: NarrowContext, operand: string | number): Promise<User | undefined> {
  if (operand === "me") return ctx.me ?? undefined;
  if (typeof operand === "number") {
    return (await userStore.getInRealm(ctx.q, ctx.realmId, operand)) ?? (await systemBotStore.listByIds(ctx.q, SYSTEM_BOT_REALM, [operand]))[0];
  }
  return (await userByEmail(ctx, operand)) ?? (await systemBotStore.getByEmail(ctx.q, SYSTEM_BOT_REALM, operand));
}

/** By email: a visitor knows users by their API email only (every real address is hidden from him). */
async function userByEmail(ctx: NarrowContext, email: string): Promise<User | undefined> {
  if (ctx.me !== null) return findUserByEmail(ctx.q, ctx.me, email);
  const folded = foldCase(email);
  return (await userStore.listByEmailInRealm(ctx.q, ctx.realmId, email)).find((u) => foldCase(u.email) === folded);
}

export async function bySender(ctx: NarrowContext, operand: Operand): Promise<Built> {
  const user = Array.isArray(operand) ? undefined : await userFor(ctx, operand);
  if (!user) throw new BadNarrowError(`unknown user ${String(operand)}`);
  return { where: narrowSql.sender(user.id) };
}

async function usersFor(ctx: NarrowContext, operand: Operand): Promise<User[]> {
  const items = typeof operand === "string" ? operand.split(",").map((e) => e.trim()) : Array.isArray(operand) ? operand : [operand];
  const users: User[] = [];
  for (const item of items) {
    const user = await userFor(ctx, item);
    if (!user) throw new BadNarrowError(`unknown user in ${String(operand)}`);
    users.push(user);
  }
  return users;
}

/** The conversation with exactly these users (and the viewer). */
export async function byDm(ctx: NarrowContext, operand: Operand): Promise<Built> {
  const users = await usersFor(ctx, operand);
  const me = userOf(ctx);
  const others = [...new Map(users.filter((u) => u.id !== me.id).map((u) => [u.id, u])).values()];
  if (others.length === 0) {
    return { where: narrowSql.selfDirect(me), personalOnly: true };
  }
  const [other] = others;
  if (others.length === 1 && other !== undefined) {
    return { where: narrowSql.directBetween(me, other), personalOnly: true };
  }
  const group = await directMessageGroupStore.getByMembers(ctx.q, me.realm_id, [me.id, ...others.map((u) => u.id)]);
  return { where: group ? narrowSql.recipient(group.recipient_id) : narrowSql.never, personalOnly: true };
}

/** Every direct message conversation that includes this user. */
export async function byDmIncluding(ctx: NarrowContext, operand: Operand): Promise<Built> {
  const user = Array.isArray(operand) ? undefined : await userFor(ctx, operand);
  if (!user) throw new BadNarrowError(`unknown user ${String(operand)}`);
  const me = userOf(ctx);
  if (user.id === me.id) return { where: narrowSql.direct, personalOnly: true };
  const groups = await directMessageGroupStore.recipientIdsContaining(ctx.q, me.realm_id, [me.id, user.id]);
  return { where: narrowSql.directBetween(me, user, groups), personalOnly: true };
}

export function byIs(ctx: NarrowContext, operand: Operand): Built {
  switch (operand) {
    case "dm":
      return { where: narrowSql.direct, personalOnly: true };
    case "starred":
      return { where: narrowSql.flagSet(MessageFlag.STARRED), personalOnly: true };
    case "mentioned":
      return { where: narrowSql.flagSet(ANY_MENTION_FLAGS), personalOnly: true };
    case "alerted":
      return { where: narrowSql.flagSet(MessageFlag.HAS_ALERT_WORD), personalOnly: true };
    case "unread":
      return { where: narrowSql.unread, personalOnly: true };
    case "resolved":
      return { where: narrowSql.resolved(RESOLVED_TOPIC_PREFIX) };
    case "followed":
      return { where: narrowSql.followed(userOf(ctx).id) };
    case "muted":
      return { where: narrowSql.muted(userOf(ctx).id), personalOnly: true };
    default:
      throw new BadNarrowError(`unknown 'is' operand ${String(operand)}`);
  }
}

export function byIn(ctx: NarrowContext, operand: Operand): Built {
  if (operand === "home") return { where: narrowSql.not(narrowSql.muted(userOf(ctx).id)) };
  if (operand === "all") return { where: narrowSql.always };
  throw new BadNarrowError(`unknown 'in' operand ${String(operand)}`);
}

export function byHas(_ctx: NarrowContext, operand: Operand): Built {
  switch (operand) {
    case "link":
      return { where: narrowSql.hasLink };
    case "image":
      return { where: narrowSql.hasImage };
    case "attachment":
      return { where: narrowSql.hasAttachment };
    case "reaction":
      return { where: narrowSql.hasReaction };
    default:
      throw new BadNarrowError(`unknown 'has' operand ${String(operand)}`);
  }
}

function messageIdOperand(operand: Operand): number {
  if (typeof operand === "number" && Number.isSafeInteger(operand) && operand >= 0) return operand;
  if (typeof operand === "string" && /^\d{1,15}$/.test(operand)) return Number(operand);
  throw new BadNarrowError("Invalid message ID");
}

export function byId(_ctx: NarrowContext, operand: Operand): Built {
  return { where: narrowSql.id(messageIdOperand(operand)) };
}

/** `near` only positions the view (the web app's anchor); it filters nothing. */
export function byNear(_ctx: NarrowContext, operand: Operand): Built {
  messageIdOperand(operand);
  return { where: narrowSql.always };
}

export function bySearch(ctx: NarrowContext, operand: Operand): Built {
  if (typeof operand !== "string") throw new BadNarrowError("invalid search operand");
  const words = searchWords(operand);
  return { where: words.length > 0 ? narrowSql.search(ctx.q, words) : narrowSql.never, searchWords: words };
}

export const BUILDERS: Record<string, (ctx: BuildContext, operand: Operand) => Built | Promise<Built>> = {
  channel: byChannel,
  channels: byChannels,
  topic: byTopic,
  sender: bySender,
  dm: byDm,
  "dm-including": byDmIncluding,
  is: byIs,
  in: byIn,
  has: byHas,
  id: byId,
  near: byNear,
  search: bySearch,
};

export { messageIdOperand };
