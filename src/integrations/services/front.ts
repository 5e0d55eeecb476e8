import { badRequest } from "../../lib/errors.js";
import type { Payload } from "../payload.js";
import { defineIntegration, type WebhookMessage } from "../types.js";

/**
 * Zulip's "front" integration (zerver/webhooks/front): messages in and out, comments and
 * mentions, assignment, archive/reopen, trash/restore and tags of a Front conversation, each
 * in the conversation's topic (its id).
 */

function messageData(p: Payload): { link: string; outbox: string; inbox: string; subject: string } {
  return {
    link: `https://app.frontapp.com/open/${p.at("target.data.id").str()}`,
    outbox: p.at("conversation.recipient.handle").str(),
    inbox: p.at("source.data.0.address").str(),
    subject: p.at("conversation.subject").str(),
  };
}

/** Who did it: a teammate's name, a rule, or the kind of source in parentheses ("(gmail)"). */
function sourceName(p: Payload): string {
  const type = p.at("source._meta.type").str();
  if (type === "teammate") return `${p.at("source.data.first_name").str()} ${p.at("source.data.last_name").str()}`;
  if (type === "rule") return `'${p.at("source.data.name").str()}' rule`;
  return `(${type})`;
}

const targetName = (p: Payload) => `${p.at("target.data.first_name").str()} ${p.at("target.data.last_name").str()}`;

function comment(p: Payload): string {
  const name = sourceName(p);
  return `**${name}** left a comment:\n\`\`\`quote\n${p.at("target.data.body").str()}\n\`\`\``;
}

const BODIES: Record<string, (p: Payload) => string> = {
  inbound: (p) => {
    const { link, outbox, inbox, subject } = messageData(p);
    return `[Inbound message](${link}) from **${outbox}** to **${inbox}**:\n\`\`\`quote\n*Subject*: ${subject}\n\`\`\``;
  },
  outbound: (p) => {
    const { link, outbox, inbox, subject } = messageData(p);
    return `[Outbound message](${link}) from **${inbox}** to **${outbox}**:\n\`\`\`quote\n*Subject*: ${subject}\n\`\`\``;
  },
  out_reply: (p) => {
    const { link, outbox, inbox } = messageData(p);
    return `[Outbound reply](${link}) from **${inbox}** to **${outbox}**.`;
  },
  comment,
  mention: comment,
  assign: (p) => {
    const source = sourceName(p);
    const target = targetName(p);
    return source === target ? `**${source}** assigned themselves.` : `**${source}** assigned **${target}**.`;
  },
  unassign: (p) => `Unassigned by **${sourceName(p)}**.`,
  archive: (p) => `Archived by **${sourceName(p)}**.`,
  reopen: (p) => `Reopened by **${sourceName(p)}**.`,
  trash: (p) => `Deleted by **${sourceName(p)}**.`,
  restore: (p) => `Restored by **${sourceName(p)}**.`,
  tag: (p) => {
    const name = sourceName(p);
    return `**${name}** added tag **${p.at("target.data.name").str()}**.`;
  },
  untag: (p) => {
    const name = sourceName(p);
    return `**${name}** removed tag **${p.at("target.data.name").str()}**.`;
  },
};

export default defineIntegration({
  name: "front",
  displayName: "Front",
  categories: ["customer-support"],
  allEventTypes: Object.keys(BODIES),
  setup:
    "In Front, go to **Settings** → **Company** → **Rules** (or your personal rules), create a rule with the triggers you want, " +
    "and as its action choose **Send to a Webhook** with the URL generated here.",
  handle: ({ payload }): WebhookMessage => {
    const event = payload.get("type").str();
    const body = Object.hasOwn(BODIES, event) ? BODIES[event] : undefined;
    if (!body) throw badRequest("Unknown webhook request");
    const topic = payload.at("conversation.id").str();
    return { topic, content: body(payload), eventType: event };
  },
});
