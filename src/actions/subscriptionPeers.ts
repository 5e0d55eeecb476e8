import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { metadataAudience } from "../lib/streamAccess.js";
import { streamStore } from "../store/streams.js";
import { subscriptionStore } from "../store/subscriptions.js";

/**
 * Tells everyone who may see a channel's subscribers that `user` joined or left its subscriber
 * list without a subscription change of their own: account creation (default channels),
 * deactivation (subscribers lists hold active users only) and reactivation.
 */
export async function notifySubscriberPeers(tx: Tx, realm: Pick<Realm, "id">, user: User, op: "peer_add" | "peer_remove"): Promise<void> {
  const subs = await subscriptionStore.listActiveForUser(tx.q, user.id);
  const streams = (
    await streamStore.listByRecipientIds(
      tx.q,
      realm.id,
      subs.map((s) => s.recipient_id),
    )
  ).filter((s) => !s.is_archived);
  if (streams.length === 0) return;
  const audiences = await metadataAudience(tx.q, realm.id, streams);
  for (const stream of streams) {
    const peers = [...(audiences.get(stream.id) ?? [])].filter((id) => id !== user.id);
    if (peers.length > 0) tx.sendEventOnCommit({ type: "subscription", op, stream_ids: [stream.id], user_ids: [user.id] }, peers);
  }
}
