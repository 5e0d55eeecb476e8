import * as z from "zod";
import { transaction } from "../appContext.js";
import {
  checkCreateCustomProfileField,
  checkDeleteCustomProfileField,
  checkReorderCustomProfileFields,
  checkUpdateCustomProfileField,
} from "../actions/customProfileFields.js";
import { endpoint } from "../http/endpoint.js";
import { p, pathParam } from "../http/params.js";
import { requireAdministrator } from "../lib/access.js";
import { customProfileFieldStore } from "../store/customProfileFields.js";
import { customProfileFieldDict } from "../lib/customProfileFieldPayload.js";

/** GET /realm/profile_fields */
export const listRealmCustomProfileFields = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user }) => {
    const fields = await customProfileFieldStore.listForRealm(ctx.db.kysely, user.realm_id);
    return { custom_fields: fields.map(customProfileFieldDict) };
  },
});

/** POST /realm/profile_fields */
export const createRealmCustomProfileField = endpoint({
  auth: "user",
  params: {
    name: p.string({ trim: false }).default(""),
    hint: p.string({ trim: false }).default(""),
    field_type: p.int(),
    field_data: p.json(z.record(z.string(), z.unknown())).default({}),
    display_in_profile_summary: p.bool().default(false),
    required: p.bool().default(false),
    editable_by_user: p.bool().default(true),
  },
  handler: async ({ ctx, user, params }) => {
    requireAdministrator(user);
    const id = await transaction(ctx, (tx) => checkCreateCustomProfileField(tx, user, params));
    return { id };
  },
});

/** PATCH /realm/profile_fields (reorder) */
export const reorderRealmCustomProfileFields = endpoint({
  auth: "user",
  params: { order: p.json(z.array(z.int())) },
  handler: async ({ ctx, user, params }) => {
    requireAdministrator(user);
    await transaction(ctx, (tx) => checkReorderCustomProfileFields(tx, user.realm_id, params.order));
  },
});

/** PATCH /realm/profile_fields/{field_id} */
export const updateRealmCustomProfileField = endpoint({
  auth: "user",
  params: {
    name: p.string({ trim: false }).optional(),
    hint: p.string({ trim: false }).optional(),
    field_data: p.json(z.record(z.string(), z.unknown())).optional(),
    display_in_profile_summary: p.bool().optional(),
    required: p.bool().optional(),
    editable_by_user: p.bool().optional(),
  },
  handler: async ({ ctx, user, path, params }) => {
    requireAdministrator(user);
    const id = pathParam.int(path.field_id, "field_id");
    await transaction(ctx, (tx) => checkUpdateCustomProfileField(tx, user, id, params));
  },
});

/** DELETE /realm/profile_fields/{field_id} */
export const deleteRealmCustomProfileField = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, path }) => {
    requireAdministrator(user);
    const id = pathParam.int(path.field_id, "field_id");
    await transaction(ctx, (tx) => checkDeleteCustomProfileField(tx, user, id));
  },
});
