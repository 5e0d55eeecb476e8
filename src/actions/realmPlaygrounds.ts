import type { Realm } from "../db/schema.js";
import type { Executor, Tx } from "../db/tx.js";
import { badRequest } from "../lib/errors.js";
import { isValidUrlTemplate, templateVariables } from "../lib/linkifiers.js";
import { realmPlaygrounds } from "../lib/realmPlaygroundPayload.js";
import { realmPlaygroundStore } from "../store/realmPlaygrounds.js";
import { userStore } from "../store/users.js";
import { validationFailure } from "./realmLinkifiers.js";

const PYGMENTS_LANGUAGE_RE = /^[ a-zA-Z0-9_+\-./#]*$/;

/** RealmPlayground.full_clean: non-blank fields, a template whose only variable is `code`, a new (language, name). */
async function checkPlayground(q: Executor, realm: Realm, name: string, language: string, urlTemplate: string): Promise<void> {
  if (name === "") throw validationFailure("This field cannot be blank.", "name");
  if (language === "") throw validationFailure("This field cannot be blank.", "pygments_language");
  if (language.length > 40) throw validationFailure(`Ensure this value has at most 40 characters (it has ${language.length}).`, "pygments_language");
  if (urlTemplate === "") throw validationFailure("This field cannot be blank.", "url_template");
  if (!isValidUrlTemplate(urlTemplate)) throw validationFailure("Invalid URL template.", "url_template");
  const variables = templateVariables(urlTemplate);
  if (variables.size !== 1 || !variables.has("code")) throw validationFailure('"code" should be the only variable present in the URL template', "__all__");
  if (await realmPlaygroundStore.exists(q, realm.id, language, name)) {
    throw validationFailure("Realm playground with this Realm, Pygments language and Name already exists.", "__all__");
  }
}

async function notifyPlaygrounds(tx: Tx, realm: Realm): Promise<void> {
  const event = { type: "realm_playgrounds" as const, realm_playgrounds: await realmPlaygrounds(tx.q, realm.id) };
  tx.sendEventOnCommit(event, await userStore.listActiveIds(tx.q, realm.id));
}

/** Zulip's add_realm_playground (check_pygments_language) and do_add_realm_playground; values trimmed. */
export async function doAddRealmPlayground(tx: Tx, realm: Realm, raw: { name: string; pygments_language: string; url_template: string }): Promise<number> {
  if (!PYGMENTS_LANGUAGE_RE.test(raw.pygments_language)) throw badRequest("Invalid characters in pygments language");
  const [name, language, urlTemplate] = [raw.name.trim(), raw.pygments_language.trim(), raw.url_template.trim()];
  await checkPlayground(tx.q, realm, name, language, urlTemplate);
  const id = await realmPlaygroundStore.insert(tx.q, realm.id, name, language, urlTemplate);
  await notifyPlaygrounds(tx, realm);
  return id;
}

/** Zulip's delete_realm_playground (access_playground_by_id). */
export async function doRemoveRealmPlayground(tx: Tx, realm: Realm, id: number): Promise<void> {
  if (!(await realmPlaygroundStore.delete(tx.q, realm.id, id))) throw badRequest("Invalid playground");
  await notifyPlaygrounds(tx, realm);
}
