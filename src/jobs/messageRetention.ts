import { type AppContext, transaction } from "../appContext.js";
import { MESSAGE_RETENTION_JOB, RETENTION_INTERVAL_SECONDS } from "../actions/messageRetention.js";
import type { Realm } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { retentionStore } from "../store/messageRetention.js";
import { type Message } from "../store/messages.js";
import { realmStore } from "../store/realms.js";
import { streamStore } from "../store/streams.js";
import { jobStore } from "../store/jobs.js";
import { nowSeconds } from "../util/time.js";
import { doDeleteMessages } from "../actions/messageDelete.js";

// The recurring message retention job (actions/messageRetention.ts makes sure one is waiting).

const BATCH = 500;

/** Job: one retention pass over every organization, then the next run is scheduled. */
export async function runMessageRetention(ctx: AppContext, _payload: unknown, job: { id: number }): Promise<void> {
  const now = nowSeconds();
  for (const realm of await realmStore.list(ctx.db.kysely)) {
    if (realm.deactivated) continue;
    await applyRealmRetention(ctx, realm, now);
  }
  await transaction(ctx, async (tx) => {
    if (!(await jobStore.hasWaiting(tx.q, MESSAGE_RETENTION_JOB, job.id)))
      await tx.enqueueJob(MESSAGE_RETENTION_JOB, {}, { runAt: nowSeconds() + RETENTION_INTERVAL_SECONDS });
  });
}

const forever = (days: number | null) => days === null || days < 0;

async function applyRealmRetention(ctx: AppContext, realm: Realm, now: number): Promise<void> {
  const realmDays = realm.message_retention_days;
  for (const stream of await streamStore.listInRealm(ctx.db.kysely, realm.id, { excludeArchived: false })) {
    const days = stream.message_retention_days ?? realmDays;
    if (forever(days)) continue;
    const cutoff = now - days! * 86400;
    await deleteInBatches(
      ctx,
      realm,
      (q) => retentionStore.channelMessagesBefore(q, stream.recipient_id, cutoff, BATCH),
      (m) => m.subject,
    );
  }
  if (!forever(realmDays)) {
    const cutoff = now - realmDays! * 86400;
    await deleteInBatches(
      ctx,
      realm,
      (q) => retentionStore.directMessagesBefore(q, realm.id, cutoff, BATCH),
      (m) => String(m.recipient_id),
    );
  }
}

/** Deletes what `find` returns, one conversation per transaction, until nothing is left. */
async function deleteInBatches(
  ctx: AppContext,
  realm: Realm,
  find: (q: Executor) => Promise<Message[]>,
  conversationOf: (m: Message) => string,
): Promise<void> {
  for (;;) {
    const found = await find(ctx.db.kysely);
    if (found.length === 0) return;
    const groups = new Map<string, Message[]>();
    for (const message of found) {
      const key = `${message.recipient_id}\u0000${conversationOf(message)}`;
      groups.set(key, [...(groups.get(key) ?? []), message]);
    }
    for (const messages of groups.values()) await transaction(ctx, (tx) => doDeleteMessages(tx, realm, messages, null));
  }
}
