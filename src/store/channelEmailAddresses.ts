import type { Selectable } from "kysely";
import type { ChannelEmailAddressesTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

export type ChannelEmailAddress = Selectable<ChannelEmailAddressesTable>;

/** Channels' incoming email addresses (Zulip's ChannelEmailAddress). */
export const channelEmailAddressStore = {
  async find(q: Executor, channelId: number, creatorId: number, senderId: number): Promise<ChannelEmailAddress | undefined> {
    return q
      .selectFrom("channel_email_addresses")
      .selectAll()
      .where("channel_id", "=", channelId)
      .where("creator_id", "=", creatorId)
      .where("sender_id", "=", senderId)
      .executeTakeFirst();
  },

  async getByToken(q: Executor, token: string): Promise<ChannelEmailAddress | undefined> {
    return q.selectFrom("channel_email_addresses").selectAll().where("email_token", "=", token).where("deactivated", "=", 0).executeTakeFirst();
  },

  /** The address of this channel, creator and sender; `row` (with its new token) when there is none yet. */
  async findOrInsert(q: Executor, row: Omit<ChannelEmailAddress, "id" | "deactivated"> & { creator_id: number }): Promise<ChannelEmailAddress> {
    await q
      .insertInto("channel_email_addresses")
      .values(row)
      .onConflict((oc) => oc.columns(["channel_id", "creator_id", "sender_id"]).doNothing())
      .execute();
    const found = await this.find(q, row.channel_id, row.creator_id, row.sender_id);
    if (!found) throw new Error("channel email address not stored");
    return found;
  },
};
