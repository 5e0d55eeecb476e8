import { createHash } from "node:crypto";
import type { AppContext } from "../appContext.js";
import type { Realm, User } from "../db/schema.js";
import { ApnsClient } from "./apns.js";
import { FcmClient } from "./fcm.js";
import { postOutgoing } from "./outgoingHttp.js";
import { serverSecret } from "./serverSecret.js";
import { type PushDevice, PushDeviceKind, pushDeviceStore } from "../store/pushDevices.js";
import { realmUrl } from "./realms.js";

// Delivery of push notifications (APNs, FCM, the push bouncer), shared by the push jobs and the test notification.

/** Zulip's stable user/realm UUIDs for the bouncer, derived from this server's secret. */
export function stableUuid(ctx: AppContext, kind: string, id: number): string {
  const hex = createHash("sha256").update(serverSecret(ctx.config.dataDir)).update(`:${kind}:${id}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export async function postToBouncer(ctx: AppContext, endpoint: string, body: string, contentType: string): Promise<void> {
  const bouncer = ctx.config.pushBouncer!;
  const response = await postOutgoing({
    url: `${bouncer.url}/api/v1/remotes/${endpoint}`,
    body,
    contentType,
    headers: { Authorization: "Basic " + Buffer.from(`${bouncer.orgId}:${bouncer.orgKey}`).toString("base64") },
    timeoutMs: 30_000,
    allowHosts: ctx.config.outgoing.allowHosts,
  });
  if (response.status < 200 || response.status >= 300) throw new Error(`push bouncer ${endpoint} answered ${response.status}: ${response.text.slice(0, 200)}`);
}

const directClients = new WeakMap<AppContext, { apns?: ApnsClient; fcm?: FcmClient }>();
function clientsOf(ctx: AppContext): { apns?: ApnsClient; fcm?: FcmClient } {
  let clients = directClients.get(ctx);
  if (!clients) {
    clients = { apns: ctx.config.apns ? new ApnsClient(ctx.config.apns) : undefined, fcm: ctx.config.fcm ? new FcmClient(ctx.config.fcm) : undefined };
    directClients.set(ctx, clients);
  }
  return clients;
}

/** Whether any way of delivering pushes is configured. */
export function pushConfigured(ctx: Pick<AppContext, "config">): boolean {
  return ctx.config.pushBouncer !== undefined || ctx.config.apns !== undefined || ctx.config.fcm !== undefined;
}

export interface PushPayloads {
  gcm: Record<string, unknown>;
  gcmPriority: "high" | "normal";
  apns: { alert?: object; sound?: string; badge: number; custom: { zulip: object } };
}

/**
 * Delivers to each device: straight to APNs/FCM where their credentials are configured, the rest
 * through the push bouncer. A device Apple or Google reports as gone is unregistered.
 */
export async function deliverPush(ctx: AppContext, user: User, realmId: number, devices: PushDevice[], payloads: PushPayloads): Promise<void> {
  const { apns, fcm } = clientsOf(ctx);
  const timeoutMs = 30_000;
  const viaBouncer: PushDevice[] = [];
  for (const device of devices) {
    if (device.kind === PushDeviceKind.APNS && apns) {
      const { alert, sound, badge, custom } = payloads.apns;
      const result = await apns.send(
        device.token,
        device.ios_app_id ?? "org.zulip.Zulip",
        { aps: { ...(alert ? { alert, sound } : {}), badge }, ...custom },
        timeoutMs,
      );
      if (result.status === 410 || result.reason === "BadDeviceToken" || result.reason === "Unregistered")
        await pushDeviceStore.remove(ctx.db.kysely, user.id, device.kind, device.token);
      else if (result.status !== 200) throw new Error(`APNs answered ${result.status} ${result.reason ?? ""}`);
    } else if (device.kind === PushDeviceKind.FCM && fcm) {
      const result = await fcm.send(device.token, payloads.gcm, payloads.gcmPriority, timeoutMs);
      if (result.status === 404 || result.error === "UNREGISTERED") await pushDeviceStore.remove(ctx.db.kysely, user.id, device.kind, device.token);
      else if (result.status !== 200) throw new Error(`FCM answered ${result.status} ${result.error ?? ""}`);
    } else {
      viaBouncer.push(device);
    }
  }
  if (viaBouncer.length === 0 || !ctx.config.pushBouncer) return;
  await postToBouncer(
    ctx,
    "push/notify",
    JSON.stringify({
      user_uuid: stableUuid(ctx, "user", user.id),
      user_id: user.id,
      realm_uuid: stableUuid(ctx, "realm", realmId),
      android_devices: viaBouncer.filter((d) => d.kind === PushDeviceKind.FCM).map((d) => d.token),
      apple_devices: viaBouncer.filter((d) => d.kind === PushDeviceKind.APNS).map((d) => d.token),
      gcm_payload: payloads.gcm,
      gcm_options: { priority: payloads.gcmPriority },
      apns_payload: payloads.apns,
    }),
    "application/json",
  );
}

export function realmFields(ctx: AppContext, realm: Realm, user: User) {
  return {
    server: new URL(ctx.config.externalUrl).host,
    realm_id: realm.id,
    realm_name: realm.name,
    realm_uri: realmUrl(ctx.config, realm),
    realm_url: realmUrl(ctx.config, realm),
    user_id: user.id,
  };
}
