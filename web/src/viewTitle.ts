import type { Term } from "./hash.js";
import { subscriptions, userName } from "./state.js";

/** The heading of a narrow (the view's title bar, the Inbox rows). */
export function title(terms: readonly Term[]): string {
  const channel = terms.find((t) => t.operator === "channel");
  const topic = terms.find((t) => t.operator === "topic");
  const dm = terms.find((t) => t.operator === "dm");
  const search = terms.find((t) => t.operator === "search");
  const is = terms.find((t) => t.operator === "is");
  if (channel) {
    const name = subscriptions.value.get(Number(channel.operand))?.name ?? channel.operand;
    return topic ? `#${name} › ${topic.operand || "general chat"}` : `#${name}`;
  }
  if (dm)
    return dm.operand
      .split(",")
      .map((id) => userName(Number(id)))
      .join(", ");
  if (search) return `Search: ${search.operand}`;
  if (is?.operand === "starred") return "Starred messages";
  if (is?.operand === "mentioned") return "Mentions";
  if (is?.operand === "dm") return "Direct messages";
  return "Combined feed";
}
