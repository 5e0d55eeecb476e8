import { hashPassword } from "../lib/passwords.js";
import * as z from "zod";
import { transaction } from "../appContext.js";
import { checkCreateUser, checkNewPassword, checkDeactivateOwnUser, checkDeactivateUser, checkUpdateUser, doReactivateUser } from "../actions/users.js";
import type { ProfileDataEntry } from "../actions/customProfileFields.js";
import { endpoint } from "../http/endpoint.js";
import { badRequest } from "../lib/errors.js";
import { p, pathParam } from "../http/params.js";
import { accessUserById, accessUserByIdOrEmail, canAccessUser, requireAdministrator, restrictedUserAccess } from "../lib/access.js";
import { fetchProfileData } from "../lib/profileData.js";
import { buildUserPayload, inaccessibleUserPayload } from "../lib/userPayload.js";
import { realmUrl } from "../lib/realms.js";
import { userStore } from "../store/users.js";

const readParams = {
  client_gravatar: p.bool().default(true),
  include_custom_profile_fields: p.bool().default(false),
};

/** GET /users */
export const getMembers = endpoint({
  auth: "user",
  params: readParams,
  handler: async ({ ctx, user, realm, params }) => {
    const q = ctx.db.kysely;
    const users = await userStore.listInRealm(q, user.realm_id);
    const profileData = params.include_custom_profile_fields ? await fetchProfileData(q, user.realm_id, null) : undefined;
    const accessible = await restrictedUserAccess(q, user, realm);
    return {
      members: users.map((u) =>
        canAccessUser(accessible, u)
          ? buildUserPayload(user, u, { clientGravatar: params.client_gravatar, profileData })
          : inaccessibleUserPayload(u.id, realmUrl(ctx.config, realm)),
      ),
    };
  },
});

/** GET /users/{user_id} and GET /users/{email} */
export const getMember = endpoint({
  auth: "user",
  params: readParams,
  handler: async ({ ctx, user, path, params }) => {
    const q = ctx.db.kysely;
    const target = await accessUserByIdOrEmail(q, user, pathParam.userIdOrEmail(path.user_id_or_email), {
      allowDeactivated: true,
      allowBots: true,
      forAdministration: false,
    });
    const profileData = params.include_custom_profile_fields ? await fetchProfileData(q, user.realm_id, [target.id]) : undefined;
    return { user: buildUserPayload(user, target, { clientGravatar: params.client_gravatar, profileData }) };
  },
});

/** GET /users/me */
export const getUserMe = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user }) => {
    const q = ctx.db.kysely;
    // The own-user object has no bot fields.
    const {
      bot_type: _type,
      bot_owner_id: _owner,
      ...own
    } = buildUserPayload(user, user, {
      clientGravatar: false,
      profileData: await fetchProfileData(q, user.realm_id, [user.id]),
    });
    return { ...own, max_message_id: await userStore.maxMessageIdForUser(q, user.id) };
  },
});

/** POST /users */
export const createUser = endpoint({
  auth: "user",
  params: {
    email: p.string(),
    password: p.string({ trim: false }),
    full_name: p.string({ trim: false }),
  },
  handler: async ({ ctx, user, realm, params }) => {
    requireAdministrator(user);
    const passwordHash = await hashPassword(checkNewPassword(params.password, ctx.config.dev), ctx.config.fastPasswordHashing);
    const created = await transaction(ctx, (tx) =>
      checkCreateUser(tx, user, realm, {
        email: params.email,
        full_name: params.full_name,
        password_hash: passwordHash,
        realmUrl: realmUrl(ctx.config, realm),
      }),
    );
    return { user_id: created.id };
  },
});

/** Zulip's check_profile_data: a list of {id: int, value: null | string | list[int]}. */
function parseProfileData(value: unknown, name: string): ProfileDataEntry[] {
  if (!Array.isArray(value)) throw badRequest(`${name} is not a list`);
  return value.map((item, i) => {
    const varName = `${name}[${i}]`;
    if (item === null || typeof item !== "object" || Array.isArray(item)) throw badRequest(`${varName} is not a dict`);
    for (const key of ["id", "value"]) if (!(key in item)) throw badRequest(`${key} key is missing from ${varName}`);
    const extra = Object.keys(item).filter((k) => k !== "id" && k !== "value");
    if (extra.length > 0) throw badRequest(`Unexpected arguments: ${extra.join(", ")}`);
    const { id, value: v } = item as { id: unknown; value: unknown };
    if (typeof id !== "number" || !Number.isSafeInteger(id)) throw badRequest(`${varName}["id"] is not an integer`);
    const isIntList = Array.isArray(v) && v.every((x) => typeof x === "number" && Number.isSafeInteger(x));
    if (v !== null && typeof v !== "string" && !isIntList) throw badRequest(`${varName}["value"] is not an allowed_type`);
    return { id, value: v as ProfileDataEntry["value"] };
  });
}

/** PATCH /users/{user_id} and PATCH /users/{email} */
export const updateUser = endpoint({
  auth: "user",
  params: {
    full_name: p.string({ trim: false }).optional(),
    role: p.intEnum([100, 200, 300, 400, 600]).optional(),
    profile_data: p.json(z.unknown()).refine(parseProfileData).optional(),
    new_email: p.string().optional(),
  },
  handler: async ({ ctx, user, path, params }) => {
    await transaction(ctx, async (tx) => {
      const target = await accessUserByIdOrEmail(tx.q, user, pathParam.userIdOrEmail(path.user_id_or_email), {
        allowDeactivated: true,
        allowBots: true,
        forAdministration: true,
      });
      await checkUpdateUser(tx, user, target, params);
    });
  },
});

/** DELETE /users/{user_id} */
export const deactivateUser = endpoint({
  auth: "user",
  params: { deactivation_notification_comment: p.string({ maxLength: 2000 }).optional() },
  handler: async ({ ctx, user, realm, path, params }) => {
    const userId = pathParam.int(path.user_id_or_email, "user_id");
    await transaction(ctx, async (tx) => {
      const target = await accessUserById(tx.q, user, userId, { forAdministration: true });
      await checkDeactivateUser(tx, user, target, realm, realmUrl(ctx.config, realm), params.deactivation_notification_comment);
    });
  },
});

/** DELETE /users/me */
export const deactivateOwnUser = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user }) => {
    await transaction(ctx, (tx) => checkDeactivateOwnUser(tx, user));
  },
});

/** POST /users/{user_id}/reactivate */
export const reactivateUser = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, path }) => {
    const userId = pathParam.int(path.user_id_or_email, "user_id");
    await transaction(ctx, async (tx) => {
      const target = await accessUserById(tx.q, user, userId, { allowDeactivated: true, allowBots: true, forAdministration: true });
      await doReactivateUser(tx, target, user);
    });
  },
});
