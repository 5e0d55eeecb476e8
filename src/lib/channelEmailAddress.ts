/**
 * Channel email addresses as Zulip writes and reads them (email_mirror_helpers.py):
 * `<channel-name-slug>.<token>[.show-sender]@<gateway domain>`; "+" also separates the parts.
 */

export interface AddressOptions {
  show_sender?: boolean;
  include_footer?: boolean;
  include_quotes?: boolean;
  prefer_text?: boolean;
}

const OPTION_TOKENS: Record<string, (options: AddressOptions) => void> = {
  "show-sender": (o) => void (o.show_sender = true),
  "include-footer": (o) => void (o.include_footer = true),
  "include-quotes": (o) => void (o.include_quotes = true),
  "prefer-text": (o) => void (o.prefer_text = true),
  "prefer-html": (o) => void (o.prefer_text = false),
};

/** Django's slugify: ASCII only, lower case, runs of spaces and hyphens one hyphen. */
function slugify(value: string): string {
  const ascii = value.normalize("NFKD").replace(/[^\x00-\x7f]/g, "");
  return ascii
    .toLowerCase()
    .replace(/[^\w\s-]/g, "")
    .replace(/[-\s]+/g, "-")
    .replace(/^[-_]+|[-_]+$/g, "");
}

/**
 * The channel's address. Non-word runs of the name become "-"; a name that does not survive
 * as ASCII is replaced by "channel".
 */
export function encodeChannelEmailAddress(channelName: string, token: string, domain: string, showSender: boolean): string {
  const name = channelName.replace(/[^\p{L}\p{N}_]+/gu, "-");
  const slug = slugify(name);
  let local = `${slug.length === name.length && slug !== "" ? slug : "channel"}.${token}`;
  if (showSender) local += ".show-sender";
  return `${local}@${domain}`;
}

/** The token and options of an address at the gateway domain, or null for another address. */
export function decodeChannelEmailAddress(address: string, domain: string): { token: string; options: AddressOptions } | null {
  const at = address.lastIndexOf("@");
  if (at <= 0 || address.slice(at + 1).toLowerCase() !== domain.toLowerCase()) return null;
  const parts = address.slice(0, at).replaceAll(".", "+").split("+");
  const options: AddressOptions = {};
  for (const part of parts) OPTION_TOKENS[part]?.(options);
  const remaining = parts.filter((part) => !(part in OPTION_TOKENS));
  const token = remaining.length === 1 ? remaining[0] : remaining[1];
  return token ? { token, options } : null;
}

/** Zulip's strip_from_subject: "Re:", "Fwd:", "AW:" and bracketed forms removed. */
export function stripFromSubject(subject: string): string {
  return subject.replace(/([[(] *)?\b(RE|AW|FWD?) *([-:;)\]][ :;\])-]*|$)|\]+ *$/gim, "").trim();
}

/** Zulip's is_forwarded: the subject starts with a form of "Fwd" (quotes are then kept). */
export function isForwarded(subject: string): boolean {
  return /^(?:([[(] *)?\b(FWD?) *([-:;)\]][ :;\])-]*|$)|\]+ *$)/i.test(subject);
}

const REPLY_HEADER = [
  /^\s*On\b.{0,300}\bwrote:\s*$/i, // Gmail, Apple Mail, Thunderbird
  /^\s*-{2,}\s*Original Message\s*-{2,}\s*$/i, // Outlook
  /^\s*-{2,}\s*Forwarded message\s*-{2,}\s*$/i,
  /^\s*Le\b.{0,300}\ba écrit\s*:\s*$/i,
  /^\s*Am\b.{0,300}\bschrieb\b.{0,100}:\s*$/i,
];

/**
 * The reply without the message it quotes (a simple form of what Zulip does with talon):
 * everything from a reply header ("On … wrote:", "-----Original Message-----") on, or a block
 * of ">" lines that ends the mail, when text comes before it. Quotes between replies stay.
 */
export function removeQuotedReply(text: string): string {
  const lines = text.split("\n");
  const hasTextBefore = (end: number) => lines.slice(0, end).some((line) => line.trim() !== "");
  const header = lines.findIndex((line) => REPLY_HEADER.some((re) => re.test(line)));
  if (header > 0 && hasTextBefore(header)) return lines.slice(0, header).join("\n").trimEnd();
  let start = lines.length;
  for (let line = lines[start - 1]; line !== undefined && (line.trim() === "" || /^\s*>/.test(line)); line = lines[start - 1]) start--;
  const quoted = lines.slice(start).some((line) => /^\s*>/.test(line));
  if (quoted && hasTextBefore(start)) return lines.slice(0, start).join("\n").trimEnd();
  return text;
}

/** Zulip's filter_footer: text before a single "--" signature line, when there is exactly one. */
export function filterFooter(text: string): string {
  const footers = text.split("\n").filter((line) => line.trim() === "--");
  if (footers.length !== 1) return text;
  return (text.split(/^\s*--\s*$/m)[0] ?? "").trim();
}
