/**
 * Slack's message markup ("mrkdwn") as Zulip Markdown, as Zulip's Slack importer converts it
 * (zerver/data_import/slack_message_conversion.py in spirit): user mentions `<@U123>` become
 * `@**Full Name|id**`, channel links `<#C123|name>` become `#**name**`, `<!here>` and friends
 * wildcard mentions, `<url|text>` links `[text](url)`, and `*bold*`, `_italic_`, `~strike~`
 * Zulip's `**bold**`, `*italic*`, `~~strike~~`. Code spans and blocks are left as they are.
 */
export interface SlackNames {
  /** Slack user id → the imported user's id and full name. */
  user(slackId: string): { id: number; fullName: string } | undefined;
  /** Slack channel id → the imported channel's name. */
  channel(slackId: string): string | undefined;
}

const WILDCARDS: Record<string, string> = { everyone: "@**all**", channel: "@**channel**", here: "@**all**" };

function unescapeHtml(text: string): string {
  return text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
}

/** One `<…>` of Slack's markup. */
function convertAngle(inner: string, names: SlackNames): string {
  const [target, label] = splitOnce(inner, "|");
  if (target.startsWith("@")) {
    const user = names.user(target.slice(1));
    if (user) return `@**${user.fullName}|${user.id}**`;
    return label !== undefined ? `@${label}` : `@${target.slice(1)}`;
  }
  if (target.startsWith("#")) {
    const name = names.channel(target.slice(1)) ?? label;
    return name !== undefined ? `#**${name}**` : `#${target.slice(1)}`;
  }
  if (target.startsWith("!")) {
    const word = target.slice(1);
    if (WILDCARDS[word]) return WILDCARDS[word];
    // User groups (`<!subteam^S123|@team>`), dates and the like: their label as text.
    return label ?? word;
  }
  const url = unescapeHtml(target);
  if (label === undefined || label === "" || unescapeHtml(label) === url) return url.startsWith("mailto:") ? url.slice("mailto:".length) : url;
  return `[${unescapeHtml(label)}](${url})`;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

// Emphasis: the marker at a word's edge, not inside a word, the text not starting or ending in space.
const BOLD = /(^|[^\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])/g;
const ITALIC = /(^|[^\w_])_(?!\s)([^_\n]+?)(?<!\s)_(?![\w_])/g;
const STRIKE = /(^|[^\w~])~(?!\s)([^~\n]+?)(?<!\s)~(?![\w~])/g;

function convertText(text: string, names: SlackNames): string {
  // Italic before bold: `*x*` becomes `**x**`, which the italic rule must not see as `_`-free input.
  let out = text.replace(ITALIC, (_, before, body) => `${before}\u0000I${body}\u0000I`);
  out = out.replace(BOLD, (_, before, body) => `${before}**${body}**`);
  out = out.replace(STRIKE, (_, before, body) => `${before}~~${body}~~`);
  out = out.replaceAll("\u0000I", "*");
  out = out.replace(/<([^<>\n]+)>/g, (_, inner: string) => convertAngle(inner, names));
  return unescapeHtml(out);
}

/** The message's text as Zulip Markdown. */
export function slackToMarkdown(text: string, names: SlackNames): string {
  // Code blocks (```…```) and spans (`…`) keep their text, but for Slack's HTML escapes.
  const parts = text.split(/(```[\s\S]*?```|`[^`\n]+`)/g);
  return parts
    .map((part, i) => {
      if (i % 2 === 0) return convertText(part, names);
      if (!part.startsWith("```")) return unescapeHtml(part);
      // Slack writes ```code``` on one line too; Zulip's fence wants the markers on their own lines.
      const body = unescapeHtml(part.slice(3, -3)).replace(/^\n/, "").replace(/\n$/, "");
      return `\n\`\`\`\n${body}\n\`\`\`\n`;
    })
    .join("")
    .replace(/^\n+/, "")
    .replace(/\n+$/, "");
}

/**
 * Slack's emoji names that Zulip names otherwise (Slack follows iamcal's emoji-data, Zulip its
 * own names for the same code points): the Slack name → Zulip's. Names not here are looked up
 * as they are; skin tones (`thumbsup::skin-tone-2`) are dropped, as Zulip does.
 */
const SLACK_EMOJI_NAMES: Record<string, string> = {
  thumbsup: "+1",
  thumbsdown: "-1",
  smile: "big_smile",
  grin: "grinning_face_with_smiling_eyes",
  simple_smile: "smile",
  slightly_smiling_face: "smile",
  slightly_frowning_face: "slight_frown",
  satisfied: "laughing",
  white_check_mark: "check",
  heavy_check_mark: "check_mark",
  x: "cross_mark",
  heavy_plus_sign: "plus",
  heavy_minus_sign: "minus",
  ok_hand: "ok",
  thinking_face: "thinking",
  face_with_rolling_eyes: "rolling_eyes",
  upside_down_face: "upside_down",
  hugging_face: "hug",
  "star-struck": "star_struck",
  bulb: "light_bulb",
};

export function slackEmojiName(name: string): string {
  const base = name.split("::")[0] ?? name;
  return SLACK_EMOJI_NAMES[base] ?? base;
}
