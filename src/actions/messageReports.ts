import type { Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../lib/errors.js";
import { accessMessage } from "../lib/messageAccess.js";
import { MessagePayloadBuilder } from "../lib/messagePayload.js";
import { AccessSubject } from "../lib/streamAccess.js";
import { MAX_MESSAGE_LENGTH, MAX_REPORT_EXPLANATION_LENGTH } from "../models/limits.js";
import { realmSettings } from "../models/realmSettings.js";
import type { Message } from "../store/messages.js";
import { streamStore } from "../store/streams.js";
import { silentMention } from "./channelNotices.js";
import { normalizeTopic, truncate } from "../lib/messageText.js";
import { sendNotificationBotChannelMessage } from "./notificationBot.js";
import { group } from "../util/defined.js";

/** Zulip's Realm.REPORT_MESSAGE_REASONS. */
export const REPORT_REASONS = {
  spam: "Spam",
  harassment: "Harassment",
  inappropriate: "Inappropriate content",
  norms: "Violates community norms",
  other: "Other reason",
} as const;
export type ReportType = keyof typeof REPORT_REASONS;
/** Room for the reporter's explanation and the template around the quoted message. */
const MAX_REPORT_SNIPPET_LENGTH = MAX_MESSAGE_LENGTH - MAX_REPORT_EXPLANATION_LENGTH - 500;

export interface MessageReport {
  messageId: number;
  reportType: ReportType;
  description: string;
}

/**
 * POST /messages/{id}/report (Zulip's report_message_backend + send_message_report): the
 * Notification Bot posts the report, with the reported message quoted in a spoiler, to the
 * organization's moderation-request channel, in the topic "<sender's name> moderation".
 */
export async function checkReportMessage(tx: Tx, user: User, realm: Realm, realmUrl: string, report: MessageReport): Promise<void> {
  if (report.reportType === "other" && report.description === "") throw badRequest("An explanation is required.");
  const channelId = realmSettings(realm).moderation_request_channel_id;
  const channel = channelId === -1 ? undefined : await streamStore.getById(tx.q, realm.id, channelId);
  if (!channel || channel.is_archived) throw badRequest("Message reporting is not enabled in this organization.");
  const { message } = await accessMessage(tx.q, new AccessSubject(user), report.messageId);

  const builder = await MessagePayloadBuilder.load(tx.q, realm, [message]);
  const payload = builder.build(message, user.id, [], { applyMarkdown: false, clientGravatar: false, allowEmptyTopicName: true });
  const sender = { id: message.sender_id, full_name: payload.sender_full_name as string };
  const content = reportHeader(user, sender, message, payload) + reportBody(realmUrl, message, payload, report);
  await sendNotificationBotChannelMessage(tx, realm, channel, normalizeTopic(realm, `${sender.full_name} moderation`), content, { renderAs: user });
}

type Person = { id: number; full_name: string };

function reportHeader(reporter: User, sender: Person, message: Message, payload: Record<string, unknown>): string {
  const at = globalTime(message.date_sent);
  const reported = `${silentMention(reporter)} reported a message sent by ${silentMention(sender)}`;
  if (message.is_channel_message) return `${reported} at ${at}.`;
  const people = payload.display_recipient as Person[];
  if (people.length <= 2) {
    if (sender.id !== reporter.id) return `${reported} at ${at}.`;
    // Reporting one's own 1:1 message: say to whom it went.
    const other = people.find((p) => p.id !== reporter.id) ?? reporter;
    return `${reported} to ${silentMention(other)} at ${at}.`;
  }
  return `${reported} to ${displayList(people.filter((p) => p.id !== sender.id).map(silentMention))} at ${at}.`;
}

function reportBody(realmUrl: string, message: Message, payload: Record<string, unknown>, report: MessageReport): string {
  const original = message.is_channel_message
    ? `Original message at #**${payload.display_recipient as string}>${message.subject}@${message.id}**`
    : `[Original message](${directMessageUrl(realmUrl, message.id, payload.display_recipient as Person[])})`;
  const quoted = truncate(message.content, MAX_REPORT_SNIPPET_LENGTH, "\n[message truncated]");
  const fence = unusedFence(quoted);
  return `\n\`\`\`quote\n**${REPORT_REASONS[report.reportType]}**. ${report.description}\n\`\`\`\n\n${fence} spoiler ${original}\n${quoted}\n${fence}\n`;
}

/** Zulip's pm_message_url. */
function directMessageUrl(realmUrl: string, messageId: number, people: readonly Person[]): string {
  const ids = people.map((p) => p.id).sort((a, b) => a - b);
  return `${realmUrl}/#narrow/dm/${ids.join(",")}-${ids.length >= 3 ? "group" : "dm"}/near/${messageId}`;
}

/** Zulip's datetime_to_global_time: a <time:…> that every reader sees in their own time zone. */
function globalTime(seconds: number): string {
  return `<time:${new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "+00:00")}>`;
}

/** "A", "A and B", "A, B and C" (Zulip's display_list). */
function displayList(values: readonly string[]): string {
  return values.length <= 1 ? values.join("") : `${values.slice(0, -1).join(", ")} and ${values.at(-1)}`;
}

/** Zulip's get_unused_fence: backticks longer than any fence in the text. */
function unusedFence(text: string): string {
  let length = 3;
  for (const match of text.matchAll(/^ {0,3}(`{3,})/gm)) length = Math.max(length, group(match, 1).length + 1);
  return "`".repeat(length);
}
