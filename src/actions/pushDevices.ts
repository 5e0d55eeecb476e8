import type { User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../lib/errors.js";
import { PushDeviceKind, pushDeviceStore } from "../store/pushDevices.js";
import { nowSeconds } from "../util/time.js";
import { PUSH_BOUNCER_DEVICE_JOB } from "./pushNotifications.js";

/**
 * POST/DELETE /users/me/apns_device_token and /users/me/android_gcm_reg_id (Zulip's
 * zerver/views/push_notifications.py). With a push bouncer configured, the device is also
 * registered with (or removed from) the bouncer by a durable job.
 */
export function checkToken(token: string, kind: number): string {
  if (token === "" || token.length > 4096) throw badRequest("Empty or invalid length token");
  if (kind === PushDeviceKind.APNS && !decodesAsLenientBase64(token)) throw badRequest("Invalid APNS token");
  return token;
}

/**
 * Zulip's APNs token check, b64_to_hex: Python's base64.b64decode without validation. ASCII
 * only; characters outside the alphabet are skipped; decoding stops at complete padding; the
 * data characters must fill whole quads unless padded (so hex tokens of 4n digits pass, and so
 * do Zulip's own examples such as "apple-tokenbb").
 */
function decodesAsLenientBase64(token: string): boolean {
  if (!/^[\x00-\x7f]*$/.test(token)) return false;
  let position = 0;
  let pads = 0;
  for (const char of token) {
    if (char === "=") {
      pads += 1;
      if (position >= 2 && position + pads >= 4) return true;
    } else if (/[A-Za-z0-9+/]/.test(char)) {
      pads = 0;
      position = (position + 1) % 4;
    }
  }
  return position === 0;
}

export function checkAppId(appId: string): string {
  if (!/^[.a-zA-Z0-9-]+$/.test(appId)) throw badRequest("Invalid app ID");
  return appId;
}

export async function doAddPushDevice(tx: Tx, user: User, kind: number, token: string, appId: string | null, bouncer: boolean): Promise<void> {
  await pushDeviceStore.upsert(tx.q, { user_id: user.id, kind, token, ios_app_id: appId, date_created: nowSeconds() });
  if (bouncer) await tx.enqueueJob(PUSH_BOUNCER_DEVICE_JOB, { op: "register", userId: user.id, kind, token, appId });
}

export async function doRemovePushDevice(tx: Tx, user: User, kind: number, token: string, bouncer: boolean): Promise<void> {
  if (!(await pushDeviceStore.remove(tx.q, user.id, kind, token))) throw badRequest("Token does not exist");
  if (bouncer) await tx.enqueueJob(PUSH_BOUNCER_DEVICE_JOB, { op: "unregister", userId: user.id, kind, token, appId: null });
}
