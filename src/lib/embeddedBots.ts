/**
 * Embedded bots: bot code that runs inside the server (Zulip's EMBEDDED_BOTS from zulip_bots).
 * Each handler turns the message that triggered it (without the leading mention of the bot)
 * into the bot's reply.
 */
export type EmbeddedBotHandler = (content: string) => string;

const rot13 = (text: string) =>
  text.replace(/[a-zA-Z]/g, (c) => {
    const base = c <= "Z" ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });

export const EMBEDDED_BOTS: Record<string, EmbeddedBotHandler> = {
  helloworld: () => "beep boop",
  encrypt: (content) => `Encrypted/Decrypted text: ${rot13(content)}`,
};

/** The content a bot sees: a leading @-mention of the bot removed (as zulip_bots does). */
export function withoutLeadingMention(content: string, botName: string): string {
  const mention = new RegExp(`^@_?\\*\\*${botName.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(\\|\\d+)?\\*\\*\\s*`);
  return content.replace(mention, "");
}
