import { doDeleteRealmExport, doRequestRealmExport, exportConsents, realmExports } from "../actions/realmExport.js";
import { transaction } from "../appContext.js";
import { endpoint } from "../http/endpoint.js";
import { p, pathParam } from "../http/params.js";
import { requireAdministrator } from "../lib/access.js";
import { realmUrl } from "../lib/realms.js";
import { ExportType } from "../models/realmExport.js";

/** POST /export/realm */
export const exportRealm = endpoint({
  auth: "user",
  params: { export_type: p.intEnum([ExportType.PUBLIC, ExportType.FULL_WITH_CONSENT]).default(ExportType.PUBLIC) },
  handler: async ({ ctx, user, realm, params }) => {
    requireAdministrator(user);
    const support = ctx.config.admin.email ?? "the server administrator";
    return { id: await transaction(ctx, (tx) => doRequestRealmExport(tx, realm, user, params.export_type, realmUrl(ctx.config, realm), support)) };
  },
});

/** GET /export/realm */
export const getRealmExports = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, realm }) => {
    requireAdministrator(user);
    return { exports: await realmExports(ctx.db.kysely, realm.id, realmUrl(ctx.config, realm)) };
  },
});

/** DELETE /export/realm/{export_id} */
export const deleteRealmExport = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, realm, path }) => {
    requireAdministrator(user);
    const id = pathParam.int(path.export_id, "export_id");
    await transaction(ctx, (tx) => doDeleteRealmExport(tx, realm, id, realmUrl(ctx.config, realm)));
  },
});

/** GET /export/realm/consents */
export const getUsersExportConsents = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, realm }) => {
    requireAdministrator(user);
    return { export_consents: await exportConsents(ctx.db.kysely, realm.id) };
  },
});
