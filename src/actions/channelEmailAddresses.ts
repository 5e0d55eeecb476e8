import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type AppContext, transaction } from "../appContext.js";
import type { Realm, Stream, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import {
  type AddressOptions,
  decodeChannelEmailAddress,
  encodeChannelEmailAddress,
  filterFooter,
  isForwarded,
  removeQuotedReply,
  stripFromSubject,
} from "../lib/channelEmailAddress.js";
import { AccessSubject, accessStreamById } from "../lib/streamAccess.js";
import { contentTypeFor, displayFileName } from "../lib/uploadFiles.js";
import { type ChannelEmailAddress, channelEmailAddressStore } from "../store/channelEmailAddresses.js";
import { realmStore } from "../store/realms.js";
import { streamStore } from "../store/streams.js";
import { userStore } from "../store/users.js";
import { nowSeconds } from "../util/time.js";
import { createUpload } from "./attachments.js";
import { accessBotById } from "./bots.js";
import { normalizeContent, truncate } from "../lib/messageText.js";
import { checkMessage, checkSendMessage } from "./messageSend.js";
import { sendSystemBotChannelMessages } from "./notificationBot.js";
import { systemBotStore } from "../store/systemBots.js";
import { MAX_MESSAGE_LENGTH, MAX_TOPIC_LENGTH } from "../models/limits.js";
import { SYSTEM_BOT_REALM } from "../models/systemBots.js";
import { defined } from "../util/defined.js";

/** Zulip's Email Gateway bot, the default sender of mail to a channel. */
const EMAIL_GATEWAY_BOT_EMAIL = "emailgateway@zulip.com";

async function emailGatewayBot(tx: Tx): Promise<User | undefined> {
  return systemBotStore.getByEmail(tx.q, SYSTEM_BOT_REALM, EMAIL_GATEWAY_BOT_EMAIL);
}

/**
 * GET /streams/{stream_id}/email_address: the channel's address for this user and sender (the
 * Email Gateway bot by default, the user, or one of the user's bots), its token made on first
 * request. An empty string when the server has no gateway domain (as Zulip without
 * EMAIL_GATEWAY_PATTERN).
 */
export async function checkGetChannelEmailAddress(
  tx: Tx,
  user: User,
  streamId: number,
  senderId: number | undefined,
  domain: string | undefined,
): Promise<string> {
  const { stream } = await accessStreamById(tx.q, new AccessSubject(user), streamId, "content");
  const gateway = await emailGatewayBot(tx);
  let sender: User;
  if ((senderId === undefined || senderId === gateway?.id) && gateway) sender = gateway;
  else if (senderId === undefined || senderId === user.id) sender = user;
  else sender = await accessBotById(tx, user, senderId);
  const row = await channelEmailAddressStore.findOrInsert(tx.q, {
    realm_id: stream.realm_id,
    channel_id: stream.id,
    creator_id: user.id,
    sender_id: sender.id,
    email_token: randomBytes(16).toString("hex"),
    date_created: nowSeconds(),
  });
  return domain ? encodeChannelEmailAddress(stream.name, row.email_token, domain, true) : "";
}

/** Mail the gateway does not take, with the SMTP reply for it. */
export class EmailGatewayRefusal extends Error {
  constructor(
    message: string,
    readonly responseCode = 550,
  ) {
    super(message);
  }
}

/** A channel address resolved to where and as whom its mail is posted. */
export interface ChannelMailTarget {
  address: ChannelEmailAddress;
  options: AddressOptions;
  realm: Realm;
  stream: Stream;
  sender: User;
  /** Whose permission to post is checked: the creator for the Email Gateway bot, else the sender. */
  poster: User;
  viaGatewayBot: boolean;
}

/**
 * Zulip's decode_stream_email_address and check_access_for_channel_email_address: the address
 * must carry a known token, and its poster must (still) be allowed to post in the channel.
 */
export async function resolveChannelMailTarget(tx: Tx, recipient: string, domain: string): Promise<ChannelMailTarget> {
  const decoded = decodeChannelEmailAddress(recipient, domain);
  if (!decoded) throw new EmailGatewayRefusal("Address not recognized by gateway.");
  const address = await channelEmailAddressStore.getByToken(tx.q, decoded.token);
  if (!address) throw new EmailGatewayRefusal("Bad channel token from email recipient.");
  const realm = await realmStore.getById(tx.q, address.realm_id);
  const stream = await streamStore.getById(tx.q, address.realm_id, address.channel_id);
  const sender = await userStore.getById(tx.q, address.sender_id);
  const creator = address.creator_id === null ? undefined : await userStore.getById(tx.q, address.creator_id);
  if (!realm || realm.deactivated || !stream || !sender) throw new EmailGatewayRefusal("Bad channel token from email recipient.");
  const gateway = await emailGatewayBot(tx);
  const viaGatewayBot = sender.id === gateway?.id;
  const poster = viaGatewayBot && creator ? creator : sender;
  if (!poster.is_active || !sender.is_active) throw new EmailGatewayRefusal("The sender of this channel address is deactivated.");
  try {
    await checkMessage(tx, poster, realm, { type: "stream", to: stream.id, topic: "email", content: "email" });
  } catch (error) {
    throw new EmailGatewayRefusal(`Not allowed to post to this channel: ${(error as Error).message}`);
  }
  return { address, options: decoded.options, realm, stream, sender, poster, viaGatewayBot };
}

/** The parts of a parsed mail the gateway posts. */
export interface IncomingMail {
  subject: string;
  from: string;
  text: string | undefined;
  html: string | undefined;
  attachments: Array<{ filename: string | undefined; contentType: string; content: Buffer }>;
}

const UNPRINTABLE = /[\p{Cc}\p{Cs}\p{Noncharacter_Code_Point}]/gu;

/** Zulip's process_stream_message topic: Re/Fwd stripped, unprintable characters dropped. */
function mailTopic(subject: string): string {
  const topic = stripFromSubject(subject).replace(UNPRINTABLE, "");
  return truncate(topic || "Email with no subject", MAX_TOPIC_LENGTH, "...");
}

/**
 * Zulip's construct_zulip_body: the plain-text body (the HTML part's text when there is none,
 * or with prefer-html), the quoted message dropped unless include-quotes, its "--" signature
 * dropped unless include-footer, "From:" first with
 * show-sender, and the attachments' links last.
 */
function mailBody(mail: IncomingMail, options: AddressOptions, attachmentLinks: string[]): string {
  const text = options.prefer_text === false ? (mail.html ?? mail.text) : mail.text || mail.html;
  if (text === undefined) throw new EmailGatewayRefusal("Unable to find plaintext or HTML message body");
  let body = text.replaceAll("\u0000", "");
  if (!options.include_quotes) body = removeQuotedReply(body);
  if (!options.include_footer) body = filterFooter(body);
  if (!body.endsWith("\n")) body += "\n";
  if (body.trim() === "") body = "(No email body)";
  const preamble = options.show_sender ? `From: ${mail.from}\n` : "";
  const postamble = attachmentLinks.length > 0 ? "\n" + attachmentLinks.join("\n") : "";
  return preamble + truncate(body, MAX_MESSAGE_LENGTH - preamble.length - postamble.length, "\n[message truncated]") + postamble;
}

/**
 * The attachments, uploaded as the sender in the channel's organization (the Email Gateway bot
 * belongs to the system realm; its uploads are recorded in the target realm, as Zulip's
 * target_realm). Returns the Markdown links.
 */
async function uploadAttachments(ctx: AppContext, uploader: User, mail: IncomingMail): Promise<string[]> {
  const files = mail.attachments.filter((a) => a.filename);
  if (files.length === 0) return [];
  const directory = await mkdtemp(path.join(os.tmpdir(), "parley-email-"));
  try {
    const links: string[] = [];
    for (const [i, file] of files.entries()) {
      const name = displayFileName(file.filename!);
      const localPath = path.join(directory, String(i));
      await writeFile(localPath, file.content);
      const { url } = await createUpload(ctx, uploader, { localPath, name, size: file.content.length, contentType: contentTypeFor(file.contentType, name) });
      links.push(`[${name.replace(/[[\]]/g, "")}](${url})`);
    }
    return links;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** Zulip's process_stream_message: posts a mail sent to a channel address in that channel. */
export async function processChannelMail(ctx: AppContext, recipient: string, domain: string, mail: IncomingMail): Promise<number> {
  const target = await transaction(ctx, (tx) => resolveChannelMailTarget(tx, recipient, domain));
  // Quotes are kept in forwarded mail unless the address says otherwise (Zulip).
  const options = { include_quotes: isForwarded(mail.subject), ...target.options };
  const uploader = target.viaGatewayBot ? { ...target.sender, realm_id: target.realm.id } : target.sender;
  const links = await uploadAttachments(ctx, uploader, mail);
  // Zulip's send_zulip: normalize_body (trailing whitespace and leading newlines dropped).
  const content = normalizeContent(mailBody(mail, options, links));
  const topic = mailTopic(mail.subject);
  return transaction(ctx, async (tx) => {
    if (!target.viaGatewayBot) {
      return (await checkSendMessage(tx, target.sender, target.realm, { type: "stream", to: target.stream.id, topic, content, clientName: "Internal" })).id;
    }
    await checkMessage(tx, target.poster, target.realm, { type: "stream", to: target.stream.id, topic, content });
    const [id] =
      (await sendSystemBotChannelMessages(tx, target.realm, target.sender, [{ stream: target.stream, topic, content }], { renderAs: uploader })) ?? [];
    return defined(id, "the id of the message sent");
  });
}
