import * as z from "zod";
import { checkReorderLinkifiers, doAddLinkifier, doRemoveLinkifier, doUpdateLinkifier } from "../actions/realmLinkifiers.js";
import { transaction } from "../appContext.js";
import { endpoint } from "../http/endpoint.js";
import { p, pathParam } from "../http/params.js";
import { requireAdministrator } from "../lib/access.js";
import { realmLinkifiers } from "../lib/messageRendering.js";

const linkifierParams = { pattern: p.string({ trim: false }), url_template: p.string({ trim: false }) };

/** GET /realm/linkifiers */
export const listLinkifiers = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, realm }) => ({ linkifiers: await realmLinkifiers(ctx.db.kysely, realm) }),
});

/** POST /realm/filters */
export const addLinkifier = endpoint({
  auth: "user",
  params: linkifierParams,
  handler: async ({ ctx, user, realm, params }) => {
    requireAdministrator(user);
    return { id: await transaction(ctx, (tx) => doAddLinkifier(tx, realm, params.pattern, params.url_template)) };
  },
});

/** PATCH /realm/filters/{filter_id} */
export const updateLinkifier = endpoint({
  auth: "user",
  params: linkifierParams,
  handler: async ({ ctx, user, realm, params, path }) => {
    requireAdministrator(user);
    const id = pathParam.int(path.filter_id, "filter_id");
    await transaction(ctx, (tx) => doUpdateLinkifier(tx, realm, id, params.pattern, params.url_template));
  },
});

/** DELETE /realm/filters/{filter_id} */
export const removeLinkifier = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, realm, path }) => {
    requireAdministrator(user);
    const id = pathParam.int(path.filter_id, "filter_id");
    await transaction(ctx, (tx) => doRemoveLinkifier(tx, realm, id));
  },
});

/** PATCH /realm/linkifiers */
export const reorderLinkifiers = endpoint({
  auth: "user",
  params: { ordered_linkifier_ids: p.json(z.array(z.int())) },
  handler: async ({ ctx, user, realm, params }) => {
    requireAdministrator(user);
    await transaction(ctx, (tx) => checkReorderLinkifiers(tx, realm, params.ordered_linkifier_ids));
  },
});
