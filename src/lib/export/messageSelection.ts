import type { Stream, User } from "../../db/schema.js";
import type { Executor } from "../../db/tx.js";
import { ExportType, type ExportTypeCode } from "../../models/realmExport.js";
import { exportReadStore as read } from "../../store/exportReads.js";

/**
 * Which messages an export holds (Zulip's export_partial_message_files):
 * - public: the messages of public channels (web-public ones included);
 * - full with consent: those, plus every conversation a consenting user takes part in (their
 *   channels, except channels with protected history, their direct messages and groups), the
 *   messages of protected-history channels that a consenting user received, and what consenting
 *   users sent to the others.
 * - full without consent (the command line only): every message of the organization.
 * Returns the ids sorted, and the cross-realm bots (possible senders).
 */
export interface SelectionInput {
  realmId: number;
  type: ExportTypeCode;
  users: User[];
  streams: Stream[];
  groups: Array<{ member_key: string; recipient_id: number | null }>;
  subscriptions: Array<{ user_id: number; recipient_id: number }>;
  consented: ReadonlySet<number>;
  systemBots: Array<{ id: number; email: string; recipient_id: number | null }>;
}

const present = (ids: Array<number | null>): number[] => ids.filter((id): id is number => id !== null);

export async function selectMessageIds(q: Executor, input: SelectionInput): Promise<{ messageIds: number[]; systemBots: SelectionInput["systemBots"] }> {
  const { realmId, streams, consented } = input;
  const publicRecipients = present(streams.filter((s) => s.invite_only === 0).map((s) => s.recipient_id));
  if (input.type === ExportType.FULL_WITHOUT_CONSENT) return { messageIds: await read.allMessageIds(q, realmId), systemBots: input.systemBots };
  if (input.type === ExportType.PUBLIC) {
    return { messageIds: await read.messageIdsTo(q, realmId, publicRecipients), systemBots: input.systemBots };
  }

  const protectedRecipients = new Set(present(streams.filter((s) => s.history_public_to_subscribers === 0).map((s) => s.recipient_id)));
  // Zulip's consented_recipient_ids: every subscription of a consenting user, its own direct
  // messages and its groups' included (Parley implies those two instead of storing them).
  const consentedRecipients = new Set<number>();
  for (const s of input.subscriptions) if (consented.has(s.user_id)) consentedRecipients.add(s.recipient_id);
  for (const u of input.users) if (consented.has(u.id) && u.recipient_id !== null) consentedRecipients.add(u.recipient_id);
  for (const g of input.groups) {
    if (g.recipient_id !== null && g.member_key.split(",").some((id) => consented.has(Number(id)))) consentedRecipients.add(g.recipient_id);
  }

  const received = new Set(publicRecipients);
  for (const id of consentedRecipients) if (!protectedRecipients.has(id)) received.add(id);
  const protectedConsented = [...consentedRecipients].filter((id) => protectedRecipients.has(id));
  const others = [...input.users.filter((u) => !consented.has(u.id)).map((u) => u.recipient_id), ...input.systemBots.map((b) => b.recipient_id)];
  const consentedIds = [...consented];
  const parts = [
    await read.messageIdsTo(q, realmId, [...received]),
    await read.messageIdsTo(q, realmId, protectedConsented, { readByAnyOf: consentedIds }),
    await read.messageIdsTo(q, realmId, present(others), { senderIds: consentedIds }),
  ];
  const all = new Set<number>();
  for (const part of parts) for (const id of part) all.add(id);
  return { messageIds: [...all].sort((a, b) => a - b), systemBots: input.systemBots };
}
