/**
 * Zulip's UserMessage.flags bitmask (zerver/models/messages.py ALL_FLAGS): the bit of each flag
 * is its position in that list, so values stay compatible with Zulip's data.
 */
export const MessageFlag = {
  READ: 1 << 0,
  STARRED: 1 << 1,
  COLLAPSED: 1 << 2,
  MENTIONED: 1 << 3,
  STREAM_WILDCARD_MENTIONED: 1 << 4,
  TOPIC_WILDCARD_MENTIONED: 1 << 5,
  // 1 << 6 .. 1 << 8: unused (removed features)
  HAS_ALERT_WORD: 1 << 9,
  HISTORICAL: 1 << 10,
  IS_PRIVATE: 1 << 11,
  ACTIVE_MOBILE_PUSH_NOTIFICATION: 1 << 12,
} as const;

/** Any kind of mention of the user (Zulip's is:mentioned). */
export const ANY_MENTION_FLAGS = MessageFlag.MENTIONED | MessageFlag.STREAM_WILDCARD_MENTIONED | MessageFlag.TOPIC_WILDCARD_MENTIONED;

/** API names in bit order; internal bookkeeping flags (is_private, push) are never shown. */
const API_FLAGS: ReadonlyArray<[number, string]> = [
  [MessageFlag.READ, "read"],
  [MessageFlag.STARRED, "starred"],
  [MessageFlag.COLLAPSED, "collapsed"],
  [MessageFlag.MENTIONED, "mentioned"],
  [MessageFlag.STREAM_WILDCARD_MENTIONED, "stream_wildcard_mentioned"],
  [MessageFlag.TOPIC_WILDCARD_MENTIONED, "topic_wildcard_mentioned"],
  [MessageFlag.HAS_ALERT_WORD, "has_alert_word"],
  [MessageFlag.HISTORICAL, "historical"],
];

/**
 * The `flags` list of a message for the API. Zulip still adds the deprecated `wildcard_mentioned`
 * for either wildcard flag (feature level 224) so older clients keep working.
 */
export function flagsToList(bits: number): string[] {
  const flags = API_FLAGS.filter(([bit]) => (bits & bit) !== 0).map(([, name]) => name);
  if (bits & (MessageFlag.STREAM_WILDCARD_MENTIONED | MessageFlag.TOPIC_WILDCARD_MENTIONED)) flags.push("wildcard_mentioned");
  return flags;
}

/** Flags of a message the user can read but did not receive (public history). */
export const HISTORICAL_FLAGS = ["read", "historical"];
