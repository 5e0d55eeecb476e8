import { sql, type RawBuilder } from "kysely";
import type { User } from "../../db/schema.js";
import type { Executor } from "../../db/tx.js";
import { ApiError } from "../errors.js";
import { ANY_MENTION_FLAGS, MessageFlag } from "../../models/messageFlags.js";
import { isGuest } from "../../models/roles.js";
import { directMessageGroupStore } from "../../store/directMessageGroups.js";
import { systemBotStore, VisibilityPolicy } from "../../store/messages.js";
import { userStore } from "../../store/users.js";
import { findUserByEmail } from "../access.js";
import { type ChannelReadability, historyIsPublic } from "../messageAccess.js";
import { SYSTEM_BOT_REALM } from "../realms.js";
import { accessStreamById, accessStreamByName, type AccessSubject, type ChannelAccess } from "../streamAccess.js";
import type { Operand } from "./parse.js";
import { searchCondition, searchWords } from "./search.js";

/**
 * One builder per narrow operator (Zulip's NarrowBuilder.by_*). Each turns an operand into a
 * condition on `m` (messages) and `um` (the user's user_messages row, null for public history
 * the user did not receive), or throws BAD_NARROW with Zulip's text. Negation is applied by the
 * caller, in one place. `history` says the term allows searching the channel's whole history.
 */
export type Condition = RawBuilder<boolean>;

export interface NarrowContext {
  q: Executor;
  subject: AccessSubject;
  me: User;
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

const TRUE: Condition = sql<boolean>`1 = 1`;
const FALSE: Condition = sql<boolean>`1 = 0`;
const flagSet = (bits: number) => sql<boolean>`(um.flags & ${sql.lit(bits)}) <> 0`;

/**
 * The channel the operand names, if the user may see it (accessStreamById/ByName's "metadata"
 * rule). Found among the realm's channels already loaded for the access rules, by id or by exact
 * name; another spelling of a name is left to the database, whose lower() decides which
 * spellings match.
 */
async function channelFor(ctx: BuildContext, operand: Operand): Promise<ChannelAccess> {
  const channels = [...ctx.channels.byStreamId.values()];
  const known =
    typeof operand === "number" ? ctx.channels.byStreamId.get(operand) : typeof operand === "string" ? channels.find((c) => c.stream.name === operand) : undefined;
  if (known?.canSeeMetadata) return known;
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
    where: sql<boolean>`m.recipient_id = ${access.stream.recipient_id}`,
    history: access.canReadContent && historyIsPublic(access.stream),
  };
}

export async function byChannels(ctx: NarrowContext, operand: Operand): Promise<Built> {
  if (operand === "public") {
    return {
      where: sql<boolean>`m.recipient_id in (select recipient_id from streams where realm_id = ${ctx.me.realm_id} and invite_only = 0)`,
      history: !isGuest(ctx.me),
    };
  }
  if (operand === "web-public") {
    return {
      where: sql<boolean>`m.recipient_id in (select recipient_id from streams where realm_id = ${ctx.me.realm_id} and is_web_public = 1)`,
      history: !isGuest(ctx.me),
    };
  }
  throw new BadNarrowError(`unknown channels operand ${String(operand)}`);
}

export function byTopic(_ctx: NarrowContext, operand: Operand): Built {
  if (typeof operand !== "string") throw new BadNarrowError("invalid topic operand");
  return { where: sql<boolean>`(m.is_channel_message = 1 and lower(m.subject) = lower(${operand}))` };
}

/** A user of the viewer's realm, or a cross-realm system bot (Notification Bot and friends). */
async function userFor(ctx: NarrowContext, operand: string | number): Promise<User | undefined> {
  if (operand === "me") return ctx.me;
  if (typeof operand === "number") {
    return (await userStore.getInRealm(ctx.q, ctx.me.realm_id, operand)) ?? (await systemBotStore.listByIds(ctx.q, SYSTEM_BOT_REALM, [operand]))[0];
  }
  return (await findUserByEmail(ctx.q, ctx.me, operand)) ?? (await systemBotStore.getByEmail(ctx.q, SYSTEM_BOT_REALM, operand));
}

export async function bySender(ctx: NarrowContext, operand: Operand): Promise<Built> {
  const user = Array.isArray(operand) ? undefined : await userFor(ctx, operand);
  if (!user) throw new BadNarrowError(`unknown user ${String(operand)}`);
  return { where: sql<boolean>`m.sender_id = ${user.id}` };
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
  const me = ctx.me;
  const others = [...new Map(users.filter((u) => u.id !== me.id).map((u) => [u.id, u])).values()];
  if (others.length === 0) {
    return { where: sql<boolean>`(m.is_channel_message = 0 and m.sender_id = ${me.id} and m.recipient_id = ${me.recipient_id})`, personalOnly: true };
  }
  if (others.length === 1) {
    const other = others[0];
    return {
      where: sql<boolean>`(m.is_channel_message = 0 and ((m.sender_id = ${me.id} and m.recipient_id = ${other.recipient_id}) or (m.sender_id = ${other.id} and m.recipient_id = ${me.recipient_id})))`,
      personalOnly: true,
    };
  }
  const group = await directMessageGroupStore.getByMembers(ctx.q, me.realm_id, [me.id, ...others.map((u) => u.id)]);
  return { where: group ? sql<boolean>`m.recipient_id = ${group.recipient_id}` : FALSE, personalOnly: true };
}

/** Every direct message conversation that includes this user. */
export async function byDmIncluding(ctx: NarrowContext, operand: Operand): Promise<Built> {
  const user = Array.isArray(operand) ? undefined : await userFor(ctx, operand);
  if (!user) throw new BadNarrowError(`unknown user ${String(operand)}`);
  const me = ctx.me;
  if (user.id === me.id) return { where: sql<boolean>`m.is_channel_message = 0`, personalOnly: true };
  const groups = await directMessageGroupStore.recipientIdsContaining(ctx.q, me.realm_id, [me.id, user.id]);
  const inGroup = groups.length > 0 ? sql<boolean>`m.recipient_id in (${sql.join(groups)})` : FALSE;
  return {
    where: sql<boolean>`(m.is_channel_message = 0 and ((m.sender_id = ${me.id} and m.recipient_id = ${user.recipient_id}) or (m.sender_id = ${user.id} and m.recipient_id = ${me.recipient_id}) or ${inGroup}))`,
    personalOnly: true,
  };
}

const followedTopic = (userId: number, policy: number) => sql<boolean>`exists (select 1 from user_topics ut join streams s on s.id = ut.stream_id
  where ut.user_id = ${userId} and s.recipient_id = m.recipient_id and lower(ut.topic_name) = lower(m.subject) and ut.visibility_policy = ${policy})`;

function mutedCondition(userId: number): Condition {
  const channelMuted = sql<boolean>`exists (select 1 from subscriptions sub where sub.user_id = ${userId} and sub.recipient_id = m.recipient_id and sub.is_muted = 1)`;
  const topicVisible = sql<boolean>`exists (select 1 from user_topics ut join streams s on s.id = ut.stream_id
    where ut.user_id = ${userId} and s.recipient_id = m.recipient_id and lower(ut.topic_name) = lower(m.subject)
    and ut.visibility_policy in (${VisibilityPolicy.UNMUTED}, ${VisibilityPolicy.FOLLOWED}))`;
  return sql<boolean>`(m.is_channel_message = 1 and ((${channelMuted} and not ${topicVisible}) or ${followedTopic(userId, VisibilityPolicy.MUTED)}))`;
}

export function byIs(ctx: NarrowContext, operand: Operand): Built {
  switch (operand) {
    case "dm":
      return { where: sql<boolean>`m.is_channel_message = 0`, personalOnly: true };
    case "starred":
      return { where: flagSet(MessageFlag.STARRED), personalOnly: true };
    case "mentioned":
      return { where: flagSet(ANY_MENTION_FLAGS), personalOnly: true };
    case "alerted":
      return { where: flagSet(MessageFlag.HAS_ALERT_WORD), personalOnly: true };
    case "unread":
      return { where: sql<boolean>`(um.flags & ${sql.lit(MessageFlag.READ)}) = 0`, personalOnly: true };
    case "resolved":
      return { where: sql<boolean>`(m.is_channel_message = 1 and m.subject like ${"✔ %"})` };
    case "followed":
      return { where: sql<boolean>`(m.is_channel_message = 1 and ${followedTopic(ctx.me.id, VisibilityPolicy.FOLLOWED)})` };
    case "muted":
      return { where: mutedCondition(ctx.me.id), personalOnly: true };
    default:
      throw new BadNarrowError(`unknown 'is' operand ${String(operand)}`);
  }
}

export function byIn(ctx: NarrowContext, operand: Operand): Built {
  if (operand === "home") return { where: sql<boolean>`not ${mutedCondition(ctx.me.id)}` };
  if (operand === "all") return { where: TRUE };
  throw new BadNarrowError(`unknown 'in' operand ${String(operand)}`);
}

export function byHas(_ctx: NarrowContext, operand: Operand): Built {
  switch (operand) {
    case "link":
      return { where: sql<boolean>`m.has_link = 1` };
    case "image":
      return { where: sql<boolean>`m.has_image = 1` };
    case "attachment":
      return { where: sql<boolean>`m.has_attachment = 1` };
    case "reaction":
      return { where: sql<boolean>`exists (select 1 from reactions r where r.message_id = m.id)` };
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
  return { where: sql<boolean>`m.id = ${messageIdOperand(operand)}` };
}

/** `near` only positions the view (the web app's anchor); it filters nothing. */
export function byNear(_ctx: NarrowContext, operand: Operand): Built {
  messageIdOperand(operand);
  return { where: TRUE };
}

export function bySearch(ctx: NarrowContext, operand: Operand): Built {
  if (typeof operand !== "string") throw new BadNarrowError("invalid search operand");
  const words = searchWords(operand);
  return { where: words.length > 0 ? searchCondition(ctx.q, words) : FALSE, searchWords: words };
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
