import { checkAppId, checkToken, doAddPushDevice, doRemovePushDevice } from "../actions/pushDevices.js";
import { transaction } from "../appContext.js";
import { endpoint } from "../http/endpoint.js";
import { p } from "../http/params.js";
import { sendTestPushNotification } from "../actions/pushNotifications.js";
import { PushDeviceKind } from "../store/pushDevices.js";

/** POST /users/me/apns_device_token */
export const addApnsToken = endpoint({
  auth: "user",
  params: { token: p.string({ trim: false }), appid: p.string({ trim: false }) },
  handler: async ({ ctx, user, params }) => {
    const token = checkToken(params.token, PushDeviceKind.APNS);
    const appId = checkAppId(params.appid);
    await transaction(ctx, (tx) => doAddPushDevice(tx, user, PushDeviceKind.APNS, token, appId, ctx.config.pushBouncer !== undefined));
  },
});

/** DELETE /users/me/apns_device_token */
export const removeApnsToken = endpoint({
  auth: "user",
  params: { token: p.string({ trim: false }) },
  handler: async ({ ctx, user, params }) => {
    const token = checkToken(params.token, PushDeviceKind.APNS);
    await transaction(ctx, (tx) => doRemovePushDevice(tx, user, PushDeviceKind.APNS, token, ctx.config.pushBouncer !== undefined));
  },
});

/** POST /users/me/android_gcm_reg_id */
export const addFcmToken = endpoint({
  auth: "user",
  params: { token: p.string({ trim: false }) },
  handler: async ({ ctx, user, params }) => {
    const token = checkToken(params.token, PushDeviceKind.FCM);
    await transaction(ctx, (tx) => doAddPushDevice(tx, user, PushDeviceKind.FCM, token, null, ctx.config.pushBouncer !== undefined));
  },
});

/** DELETE /users/me/android_gcm_reg_id */
export const removeFcmToken = endpoint({
  auth: "user",
  params: { token: p.string({ trim: false }) },
  handler: async ({ ctx, user, params }) => {
    const token = checkToken(params.token, PushDeviceKind.FCM);
    await transaction(ctx, (tx) => doRemovePushDevice(tx, user, PushDeviceKind.FCM, token, ctx.config.pushBouncer !== undefined));
  },
});

/** POST /mobile_push/test_notification */
export const sendTestNotification = endpoint({
  auth: "user",
  params: { token: p.string().optional() },
  handler: async ({ ctx, user, realm, params }) => {
    await sendTestPushNotification(ctx, user, realm, params.token);
  },
});
