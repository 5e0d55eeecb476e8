import type { Realm } from "../db/schema.js";
import { MAX_MESSAGE_LENGTH, MAX_TOPIC_LENGTH } from "../models/limits.js";
import { realmSettings } from "../models/realmSettings.js";
import { EMPTY_TOPIC_DISPLAY_NAME } from "../contract/constants.js";
import { badRequest } from "./errors.js";

// The checks of a message's text and topic that need nothing but the text (and the realm's
// mandatory_topics): shared by sending, editing, drafts, reports and typing notifications.

/** Zulip's normalize_body: trailing whitespace and leading newlines dropped; over-long text truncated. */
export function normalizeContent(raw: string): string {
  const body = raw.trimEnd().replace(/^\n+/, "");
  if (body.length === 0) throw badRequest("Message must not be empty");
  return truncate(body, MAX_MESSAGE_LENGTH, "\n[message truncated]");
}

/** Zulip's check_stream_topic: no control characters, surrogates or Unicode non-characters. */
export function checkTopicCharacters(topic: string): void {
  let position = 0;
  for (const char of topic) {
    position += 1;
    if (UNPRINTABLE.test(char)) throw badRequest(`Invalid character in topic, at position ${position}!`);
  }
}
const UNPRINTABLE = /^[\p{Cc}\p{Cs}\p{Noncharacter_Code_Point}]$/u;

/** Zulip's truncate_content: at most `max` characters, ending in `marker` when cut. */
export function truncate(text: string, max: number, marker: string): string {
  return text.length <= max ? text : text.slice(0, max - marker.length) + marker;
}

/** Topic input: "(no topic)" and the empty-topic display name mean the empty topic (FL 334/370). */
export function normalizeTopic(realm: Realm, topic: string | undefined): string {
  if (topic === undefined) throw badRequest("Missing topic");
  const trimmed = topic.trim();
  checkTopicCharacters(trimmed);
  const name = trimmed === "(no topic)" || trimmed === EMPTY_TOPIC_DISPLAY_NAME ? "" : truncate(trimmed, MAX_TOPIC_LENGTH, "...");
  if (name === "" && realmSettings(realm).mandatory_topics) throw badRequest("Topics are required in this organization");
  return name;
}
