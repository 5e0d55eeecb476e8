import type { Insertable, Selectable } from "kysely";
import type { ReactionsTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

export type Reaction = Selectable<ReactionsTable>;

/** One reaction's identity: a user votes once per (emoji_code, reaction_type) on a message. */
export interface ReactionKey {
  message_id: number;
  user_id: number;
  emoji_code: string;
  reaction_type: string;
}

export const reactionStore = {
  /** Inserts the reaction; false when the user already has it (the unique key decides, race-free). */
  async insertIfAbsent(q: Executor, row: Insertable<ReactionsTable> & ReactionKey): Promise<boolean> {
    const inserted = await q
      .insertInto("reactions")
      .values(row)
      .onConflict((oc) => oc.columns(["message_id", "user_id", "emoji_code", "reaction_type"]).doNothing())
      .returning("id")
      .executeTakeFirst();
    return inserted !== undefined;
  },

  async exists(q: Executor, key: ReactionKey): Promise<boolean> {
    const row = await q
      .selectFrom("reactions")
      .select("id")
      .where("message_id", "=", key.message_id)
      .where("user_id", "=", key.user_id)
      .where("emoji_code", "=", key.emoji_code)
      .where("reaction_type", "=", key.reaction_type)
      .executeTakeFirst();
    return row !== undefined;
  },

  /** The earliest reaction on the message with this emoji, by anyone. */
  async firstWithEmoji(q: Executor, messageId: number, emojiCode: string, reactionType: string): Promise<Reaction | undefined> {
    return q
      .selectFrom("reactions")
      .selectAll()
      .where("message_id", "=", messageId)
      .where("emoji_code", "=", emojiCode)
      .where("reaction_type", "=", reactionType)
      .orderBy("id")
      .executeTakeFirst();
  },

  /** Deletes the reaction and returns it, or undefined when there was none. */
  async delete(q: Executor, key: ReactionKey): Promise<Reaction | undefined> {
    return q
      .deleteFrom("reactions")
      .where("message_id", "=", key.message_id)
      .where("user_id", "=", key.user_id)
      .where("emoji_code", "=", key.emoji_code)
      .where("reaction_type", "=", key.reaction_type)
      .returningAll()
      .executeTakeFirst();
  },
};
