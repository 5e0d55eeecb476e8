import { type RawBuilder, sql } from "kysely";
import { type Executor } from "../db/tx.js";
import { dialectOf } from "../db/dialect.js";
import { MessageFlag } from "../models/messageFlags.js";
import { type Message } from "./messages.js";

/** A narrow's condition on `m` (messages) and `um` (the viewer's user_messages row). */
export interface NarrowQuery {
  /** The viewer; null for a visitor (no account, so no rows: `um` is always null). */
  userId: number | null;
  realmId: number;
  /** false: only messages the user received (drives from the (user_id, message_id) key). */
  includeHistory: boolean;
  where: RawBuilder<boolean>;
  /** The narrow has a full-text `search` term (the dialect may plan it row by row). */
  searchesText: boolean;
}

export interface NarrowRow {
  id: number;
  /** null: a message of public history the user did not receive. */
  flags: number | null;
}

/** A matching message, whole, with the viewer's flags (null as in NarrowRow). */
export interface NarrowMessage {
  message: Message;
  flags: number | null;
}

type MessageColumns = Message & { um_flags: number | null };
const ID_COLUMNS = sql`m.id as id, um.flags as flags`;
const MESSAGE_COLUMNS = sql`m.*, um.flags as um_flags`;
const flagsOf = (flags: unknown) => (flags === null ? null : Number(flags));

function toNarrowMessages(rows: MessageColumns[]): NarrowMessage[] {
  return rows.map(({ um_flags, ...message }) => ({ message, flags: flagsOf(um_flags) }));
}

/**
 * The narrow's SELECT of `columns` (on `m` and `um`), in one of the two shapes: all messages of
 * the realm joined to the viewer's rows (history), or the viewer's rows joined to their messages.
 */
function narrowSelect<Row = { id: number; flags: number | null }>(
  q: Executor,
  narrow: NarrowQuery,
  columns: RawBuilder<unknown>,
  tail: RawBuilder<unknown>,
): RawBuilder<Row> {
  return narrow.includeHistory
    ? sql<Row>`select ${columns} from messages m
          left join user_messages um on ${narrow.userId === null ? sql`1 = 0` : sql`um.message_id = m.id and um.user_id = ${narrow.userId}`}
          where m.realm_id = ${narrow.realmId} and ${narrow.where} and ${tail}`
    : sql<Row>`select ${columns} from user_messages um
          ${narrow.searchesText ? dialectOf(q).joinMessagesRowByRow : sql`join messages m on m.id = um.message_id`}
          where ${narrow.userId === null ? sql`1 = 0` : sql`um.user_id = ${narrow.userId}`} and m.realm_id = ${narrow.realmId} and ${narrow.where} and ${tail}`;
}

function rangeTail(narrow: NarrowQuery, op: "<" | ">" | ">=", anchor: number, limit: number, extra?: RawBuilder<boolean>): RawBuilder<unknown> {
  const id = narrow.includeHistory ? sql.ref("m.id") : sql.ref("um.message_id");
  const order = op === "<" ? sql`desc` : sql`asc`;
  const bound = sql`${id} ${sql.raw(op)} ${anchor}`;
  return sql`${bound}${extra ? sql` and ${extra}` : sql``} order by ${id} ${order} limit ${limit}`;
}

const amongTail = (ids: readonly number[]) => sql`m.id in (${sql.join([...new Set(ids)])}) order by m.id asc`;

/** Runs narrows (src/lib/narrow builds them): one query per call, whatever the result size. */
export const narrowQueryStore = {
  /**
   * The oldest matching message the user has not read. Only a received message can be unread, so
   * the query walks the user's unread rows (the user_messages_unread partial index), whatever the
   * narrow: walking a channel's whole history instead cost time in proportion to the channel's
   * size even when the user had read it to the end.
   */
  async firstUnreadId(q: Executor, narrow: NarrowQuery): Promise<number | undefined> {
    const unread = sql<boolean>`(um.flags & ${sql.lit(MessageFlag.READ)}) = 0`;
    return (await this.range(q, { ...narrow, includeHistory: false }, ">=", 0, 1, unread))[0]?.id;
  },

  /** Matching messages on one side of `anchor` (op "<", ">", ">="), nearest first. */
  async range(q: Executor, narrow: NarrowQuery, op: "<" | ">" | ">=", anchor: number, limit: number, extra?: RawBuilder<boolean>): Promise<NarrowRow[]> {
    if (limit <= 0) return [];
    const rows = await narrowSelect(q, narrow, ID_COLUMNS, rangeTail(narrow, op, anchor, limit, extra)).execute(q);
    return rows.rows.map((r) => ({ id: Number(r.id), flags: flagsOf(r.flags) }));
  },

  /** The whole matching messages among `ids`, in id order. */
  async messagesAmongIds(q: Executor, narrow: NarrowQuery, ids: readonly number[]): Promise<NarrowMessage[]> {
    if (ids.length === 0) return [];
    return toNarrowMessages((await narrowSelect<MessageColumns>(q, narrow, MESSAGE_COLUMNS, amongTail(ids)).execute(q)).rows);
  },

  /**
   * The whole matching messages around `anchor`, in one statement: up to `before` below it and up
   * to `after` from it on (`includeAnchor`: the anchor itself too), each side in ascending order.
   */
  async messagesAround(
    q: Executor,
    narrow: NarrowQuery,
    anchor: number,
    sides: { before: number; after: number; includeAnchor: boolean },
  ): Promise<{ before: NarrowMessage[]; after: NarrowMessage[] }> {
    const parts = [];
    if (sides.before > 0) parts.push(narrowSelect<MessageColumns>(q, narrow, MESSAGE_COLUMNS, rangeTail(narrow, "<", anchor, sides.before)));
    if (sides.after > 0)
      parts.push(narrowSelect<MessageColumns>(q, narrow, MESSAGE_COLUMNS, rangeTail(narrow, sides.includeAnchor ? ">=" : ">", anchor, sides.after)));
    const [first, second] = parts;
    if (first === undefined) return { before: [], after: [] };
    // Each side keeps its own ORDER BY and LIMIT inside a derived table.
    const query =
      second === undefined ? first : sql<MessageColumns>`select * from (${first}) as before_anchor union all select * from (${second}) as after_anchor`;
    const rows = toNarrowMessages((await query.execute(q)).rows).sort((a, b) => a.message.id - b.message.id);
    return { before: rows.filter((r) => r.message.id < anchor), after: rows.filter((r) => r.message.id >= anchor) };
  },
};
