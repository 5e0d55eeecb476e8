import type { Realm } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { type ApiError, badRequest } from "../lib/errors.js";
import { linkifierError } from "../lib/linkifiers.js";
import { realmLinkifiers } from "../lib/messageRendering.js";
import { realmLinkifierStore } from "../store/realmLinkifiers.js";
import { userStore } from "../store/users.js";

/** Zulip's ValidationFailureError (a model's full_clean failing): the message, and the messages by field. */
export function validationFailure(msg: string, field: string): ApiError {
  return badRequest(msg, { errors: { [field]: [msg] } });
}

/** RealmFilter.full_clean: a valid pattern and template using the same names, a pattern the organization has not used. */
async function checkLinkifier(tx: Tx, realm: Realm, pattern: string, urlTemplate: string, exceptId: number | null): Promise<void> {
  const error = linkifierError(pattern, urlTemplate);
  if (error) throw validationFailure(error.msg, error.field);
  const same = await realmLinkifierStore.findByPattern(tx.q, realm.id, pattern);
  if (same && same.id !== exceptId) throw validationFailure("Realm filter with this Realm and Pattern already exists.", "__all__");
}

/** Zulip's notify_linkifiers: the whole ordered list to every active user. */
async function notifyLinkifiers(tx: Tx, realm: Realm): Promise<void> {
  const event = { type: "realm_linkifiers" as const, realm_linkifiers: await realmLinkifiers(tx.q, realm) };
  tx.sendEventOnCommit(event, await userStore.listActiveIds(tx.q, realm.id));
}

/** Zulip's do_add_linkifier: pattern and template trimmed; the new linkifier is applied last. */
export async function doAddLinkifier(tx: Tx, realm: Realm, rawPattern: string, rawTemplate: string): Promise<number> {
  const [pattern, urlTemplate] = [rawPattern.trim(), rawTemplate.trim()];
  await checkLinkifier(tx, realm, pattern, urlTemplate, null);
  const id = await realmLinkifierStore.insert(tx.q, realm.id, pattern, urlTemplate);
  await notifyLinkifiers(tx, realm);
  return id;
}

async function existingLinkifier(tx: Tx, realm: Realm, id: number) {
  const linkifier = await realmLinkifierStore.get(tx.q, realm.id, id);
  if (!linkifier) throw badRequest("Linkifier not found.");
  return linkifier;
}

/** Zulip's do_update_linkifier. */
export async function doUpdateLinkifier(tx: Tx, realm: Realm, id: number, rawPattern: string, rawTemplate: string): Promise<void> {
  await existingLinkifier(tx, realm, id);
  const [pattern, urlTemplate] = [rawPattern.trim(), rawTemplate.trim()];
  await checkLinkifier(tx, realm, pattern, urlTemplate, id);
  await realmLinkifierStore.update(tx.q, id, pattern, urlTemplate);
  await notifyLinkifiers(tx, realm);
}

/** Zulip's do_remove_linkifier. */
export async function doRemoveLinkifier(tx: Tx, realm: Realm, id: number): Promise<void> {
  await existingLinkifier(tx, realm, id);
  await realmLinkifierStore.delete(tx.q, id);
  await notifyLinkifiers(tx, realm);
}

/** Zulip's check_reorder_linkifiers: every linkifier exactly once; the same order changes nothing. */
export async function checkReorderLinkifiers(tx: Tx, realm: Realm, orderedIds: readonly number[]): Promise<void> {
  if (new Set(orderedIds).size < orderedIds.length) throw badRequest("The ordered list must not contain duplicated linkifiers");
  const current = await realmLinkifierStore.listForRealm(tx.q, realm.id);
  const wanted = new Set(orderedIds);
  if (current.length !== wanted.size || current.some((l) => !wanted.has(l.id))) {
    throw badRequest("The ordered list must enumerate all existing linkifiers exactly once");
  }
  if (current.every((l, i) => l.id === orderedIds[i])) return;
  for (const [order, id] of orderedIds.entries()) await realmLinkifierStore.setOrder(tx.q, id, order);
  await notifyLinkifiers(tx, realm);
}
