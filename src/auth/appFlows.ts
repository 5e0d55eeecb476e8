import { createCipheriv, randomBytes } from "node:crypto";
import type { FastifyReply } from "fastify";
import type { AppContext } from "../appContext.js";
import type { Realm, User } from "../db/schema.js";
import { simplePage, sendHtml } from "../http/webApp.js";
import { realmIconUrl, realmUrl } from "../lib/realms.js";
import { escapeHtml } from "../util/html.js";
import { saveDesktopLogin } from "./flows.js";

/**
 * The ends of Zulip's app sign-in flows (zerver/views/auth.py): the mobile app gets its API key
 * through a `zulip://` redirect, encrypted with the one-time pad it sent (`mobile_flow_otp`); the
 * desktop app gets a short-lived login token encrypted under the key it sent (`desktop_flow_otp`),
 * which the person copies into the app, and the app opens /accounts/login/subdomain/<token>.
 */

/**
 * Zulip's otp_encrypt_api_key: the API key's bytes XOR the pad (64 hex digits = 32 bytes, as
 * long as the 32-character key), hex-encoded.
 */
export function otpEncryptApiKey(apiKey: string, otp: string): string {
  const key = Buffer.from(apiKey, "utf8");
  const pad = Buffer.from(otp, "hex");
  if (key.length !== pad.length) throw new Error("the API key and the one-time pad differ in length");
  return Buffer.from(key.map((byte, i) => byte ^ pad[i]!)).toString("hex");
}

/**
 * Zulip's finish_mobile_flow / create_response_for_otp_flow: a bare 302 to
 * zulip://login?otp_encrypted_api_key=…&email=…&user_id=…&realm=… (in that order).
 */
export function finishMobileFlow(ctx: AppContext, reply: FastifyReply, realm: Realm, user: User, otp: string): FastifyReply {
  const params = new URLSearchParams({
    otp_encrypted_api_key: otpEncryptApiKey(user.api_key, otp),
    email: user.delivery_email,
    user_id: String(user.id),
    realm: realmUrl(ctx.config, realm).replace(/\/+$/, ""),
  });
  return reply.code(302).header("Location", `zulip://login?${params.toString()}`).header("Cache-Control", "no-store").send();
}

/**
 * Zulip's finish_desktop_flow: a one-time login token, AES-GCM-encrypted under the 32-byte key
 * `otp` (hex of a 12-byte IV, then the ciphertext and its tag), shown on a page for the person to
 * copy into the app, with a way to continue in the browser instead.
 */
export async function finishDesktopFlow(ctx: AppContext, reply: FastifyReply, realm: Realm, user: User, otp: string): Promise<FastifyReply> {
  const token = await saveDesktopLogin(ctx, user.id);
  const desktopData = encryptDesktopToken(token, otp);
  // The organization's uploaded icon, served from this origin; without one, no icon (as the
  // login page): the default, Zulip's gravatar identicon, is on another origin, which the page's
  // Content-Security-Policy (http/webApp.ts, img-src 'self') blocks.
  const icon = realm.icon_source === "U" ? `<p><img class="realm-icon" src="${escapeHtml(realmIconUrl(realm))}" alt="" width="64" height="64"></p>` : "";
  const body =
    icon +
    `<h1>Return to the Zulip app</h1>` +
    `<label for="desktop-data">Copy this login token and return to your Zulip app to finish logging in:</label>` +
    `<input id="desktop-data" type="text" readonly value="${escapeHtml(desktopData)}">` +
    `<p>You may then close this window.</p>` +
    `<p class="hint"><a href="/login/">Or, continue in your browser.</a></p>`;
  return sendHtml(reply, 200, simplePage("Log in to the Zulip app", body));
}

/** hex(iv ‖ AES-256-GCM(token) ‖ tag), as Python's AESGCM(key).encrypt(iv, token, b"") with the IV in front. */
export function encryptDesktopToken(token: string, otp: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", Buffer.from(otp, "hex"), iv);
  const encrypted = Buffer.concat([cipher.update(token, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return Buffer.concat([iv, encrypted]).toString("hex");
}
