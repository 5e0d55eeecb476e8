import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from "node:crypto";
import { serverSecret } from "./serverSecret.js";

/**
 * BigBlueButton video calls (Zulip's get_bigbluebutton_url / join_bigbluebutton): the API hands
 * out a join link to this server carrying a signed meeting (id, name, moderator password, voice
 * only); following it creates the meeting on the BigBlueButton server and redirects there.
 * The signature keeps a user from changing the link to enter another meeting on that server.
 */
export interface BigBlueButtonMeeting {
  meeting_id: string;
  name: string;
  lock_settings_disable_cam: boolean;
  moderator: string;
}

/** The installation's key for signing meetings (derived from `<data>/server-secret`). */
export function meetingKey(dataDir: string): Buffer {
  return createHmac("sha256", serverSecret(dataDir)).update("bigbluebutton").digest();
}

const sign = (key: Buffer, data: string) => createHmac("sha256", key).update(data).digest("base64url");

export function newMeeting(name: string, voiceOnly: boolean): BigBlueButtonMeeting {
  return {
    meeting_id: `zulip-${randomInt(100000000000, 999999999999)}`,
    name,
    lock_settings_disable_cam: voiceOnly,
    moderator: randomBytes(20).toString("base64url"),
  };
}

export function signMeeting(key: Buffer, meeting: BigBlueButtonMeeting): string {
  const data = Buffer.from(JSON.stringify(meeting)).toString("base64url");
  return `${data}.${sign(key, data)}`;
}

/** The meeting a signed token names, or null when the signature is not ours. */
export function verifyMeeting(key: Buffer, token: string): BigBlueButtonMeeting | null {
  const [data, signature, extra] = token.split(".");
  if (!data || !signature || extra !== undefined) return null;
  const expected = Buffer.from(sign(key, data));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    return JSON.parse(Buffer.from(data, "base64url").toString("utf8")) as BigBlueButtonMeeting;
  } catch {
    return null;
  }
}

/** A BigBlueButton API URL with its checksum (sha256 of call name, query and shared secret). */
export function apiUrl(base: string, secret: string, call: "create" | "join", params: Record<string, string>): string {
  const query = Object.entries(params)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join("&");
  const checksum = createHash("sha256")
    .update(call + query + secret)
    .digest("hex");
  return `${base}api/${call}?${query}&checksum=${checksum}`;
}

/** The text of a top-level element of a BigBlueButton XML answer (returncode, messageKey, createTime). */
export function xmlField(xml: string, name: string): string | null {
  return new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1]?.trim() ?? null;
}
