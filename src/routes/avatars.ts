import { checkDeleteAvatar, checkDeleteRealmIcon, checkSetAvatar, checkSetRealmIcon } from "../actions/avatars.js";
import { endpoint } from "../http/endpoint.js";

/** POST /users/me/avatar: the image as the one file of a multipart body. */
export const setAvatar = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, realm, request }) => ({ avatar_url: await checkSetAvatar(ctx, user, realm, request.files) }),
});

/** DELETE /users/me/avatar */
export const deleteAvatar = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, realm }) => ({ avatar_url: await checkDeleteAvatar(ctx, user, realm) }),
});

/** POST /realm/icon: the image as the one file of a multipart body. */
export const setRealmIcon = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, realm, request }) => ({ icon_url: await checkSetRealmIcon(ctx, user, realm, request.files) }),
});

/** DELETE /realm/icon */
export const deleteRealmIcon = endpoint({
  auth: "user",
  params: {},
  handler: async ({ ctx, user, realm }) => ({ icon_url: await checkDeleteRealmIcon(ctx, user, realm) }),
});
