import { doAddRealmPlayground, doRemoveRealmPlayground } from "../actions/realmPlaygrounds.js";
import { transaction } from "../appContext.js";
import { endpoint } from "../http/endpoint.js";
import { p, pathParam } from "../http/params.js";
import { requireAdministrator } from "../lib/access.js";

/** POST /realm/playgrounds */
export const addPlayground = endpoint({
  auth: "user",
  params: { name: p.string({ trim: false }), pygments_language: p.string({ trim: false }), url_template: p.string({ trim: false }) },
  handler: async ({ ctx, user, realm, params }) => {
    requireAdministrator(user);
    return { id: await transaction(ctx, (tx) => doAddRealmPlayground(tx, realm, params)) };
  },
});

/** DELETE /realm/playgrounds/{playground_id} */
export const removePlayground = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, realm, path }) => {
    requireAdministrator(user);
    const id = pathParam.int(path.playground_id, "playground_id");
    await transaction(ctx, (tx) => doRemoveRealmPlayground(tx, realm, id));
  },
});
