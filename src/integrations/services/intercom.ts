import type { Payload } from "../payload.js";
import { pyStr } from "../python.js";
import { optString, stripTags } from "../trackerText.js";
import { defineIntegration, type WebhookInput, type WebhookMessage } from "../types.js";

/**
 * Zulip's "intercom" integration (zerver/webhooks/intercom): companies, contacts, users, tags,
 * events and conversations (admin and user messages, as text: Intercom's HTML is reduced to its
 * text as Zulip's strip_tags does). Intercom's ping posts nothing.
 */

/** Python's str.capitalize(). */
const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();

/** "<Type>: <name, pseudonym or email>". */
function contactTopic(user: Payload): string {
  const name = optString(user.get("name")) || optString(user.get("pseudonym")) || optString(user.get("email"));
  return `${capitalize(user.get("type").str())}: ${pyStr(name ?? null)}`;
}

const item = (p: Payload) => p.at("data.item");
const location = (contact: Payload) =>
  `${contact.at("location_data.city_name").str()}, ${contact.at("location_data.region_name").str()}, ${contact.at("location_data.country_name").str()}`;

type Handler = (p: Payload) => [string, string];

const contactSignedUp: Handler = (p) => {
  const contact = item(p);
  return [contactTopic(contact), `Contact signed up:\n* **Email**: ${contact.get("email").str()}\n* **Location**: ${location(contact)}`];
};

const adminAction =
  (action: string): Handler =>
  (p) => {
    const admin = pyStr(optString(item(p).at("assignee").dict().get("name")) ?? null);
    return [contactTopic(item(p).get("user")), `${admin} ${action} the conversation.`];
  };

const reply = (name: string, action: string, html: string) => `${name} ${action} the conversation:\n\n\`\`\` quote\n${stripTags(html)}\n\`\`\``;
const initiated = (name: string, html: string) => `${name} initiated a conversation:\n\n\`\`\` quote\n${stripTags(html)}\n\`\`\``;

const adminReply =
  (action: string): Handler =>
  (p) => {
    const admin = pyStr(optString(item(p).at("assignee").dict().get("name")) ?? null);
    const user = item(p).get("user");
    const note = item(p).at("conversation_parts.conversation_parts.0");
    return [contactTopic(user), reply(admin, action, note.get("body").str())];
  };

const userTagged =
  (action: string): Handler =>
  (p) => [contactTopic(item(p).get("user")), `The tag \`${item(p).at("tag.name").str()}\` was ${action} the user.`];

const HANDLERS: Record<string, Handler> = {
  "company.created": (p) => [
    "Companies",
    `New company **${item(p).get("name").str()}** created:\n* **User count**: ${item(p).get("user_count").int()}\n* **Monthly spending**: ${item(p).get("monthly_spend").int()}`,
  ],
  "contact.added_email": (p) => [contactTopic(item(p)), `New email ${item(p).get("email").str()} added to contact.`],
  "contact.created": (p) => {
    const contact = item(p);
    const name = pyStr((optString(contact.get("name")) || optString(contact.get("pseudonym"))) ?? null);
    return [
      contactTopic(contact),
      `New contact created:\n* **Name (or pseudonym)**: ${name}\n* **Email**: ${contact.get("email").str()}\n* **Location**: ${location(contact)}`,
    ];
  },
  "contact.signed_up": contactSignedUp,
  "contact.tag.created": (p) => [contactTopic(item(p).get("contact")), `Contact tagged with the \`${item(p).at("tag.name").str()}\` tag.`],
  "contact.tag.deleted": (p) => [contactTopic(item(p).get("contact")), `The tag \`${item(p).at("tag.name").str()}\` was removed from the contact.`],
  "conversation.admin.assigned": (p) => [contactTopic(item(p).get("user")), `${item(p).at("assignee.name").str()} assigned to conversation.`],
  "conversation.admin.closed": adminAction("closed"),
  "conversation.admin.opened": adminAction("opened"),
  "conversation.admin.snoozed": adminAction("snoozed"),
  "conversation.admin.unsnoozed": adminAction("unsnoozed"),
  "conversation.admin.replied": adminReply("replied to"),
  "conversation.admin.noted": adminReply("added a note to"),
  "conversation.admin.single.created": (p) => {
    const admin = pyStr(optString(item(p).at("assignee").dict().get("name")) ?? null);
    return [contactTopic(item(p).get("user")), initiated(admin, item(p).at("conversation_message.body").str())];
  },
  "conversation.user.created": (p) => {
    const user = item(p).get("user");
    return [contactTopic(user), initiated(pyStr(optString(user.get("name")) ?? null), item(p).at("conversation_message.body").str())];
  },
  "conversation.user.replied": (p) => {
    const user = item(p).get("user");
    const note = item(p).at("conversation_parts.conversation_parts.0");
    return [contactTopic(user), reply(pyStr(optString(user.get("name")) ?? null), "replied to", note.get("body").str())];
  },
  "event.created": (p) => ["Events", `New event **${item(p).get("event_name").str()}** created.`],
  "user.created": (p) => [contactTopic(item(p)), `New user created:\n* **Name**: ${item(p).get("name").str()}\n* **Email**: ${item(p).get("email").str()}`],
  "user.deleted": (p) => [contactTopic(item(p)), "User deleted."],
  "user.email.updated": (p) => [contactTopic(item(p)), `User's email was updated to ${item(p).get("email").str()}.`],
  "user.tag.created": userTagged("added to"),
  "user.tag.deleted": userTagged("removed from"),
  "user.unsubscribed": (p) => [contactTopic(item(p)), "User unsubscribed from emails."],
  // Zulip has no sample of visitor.signed_up; it reads it as contact.signed_up.
  "visitor.signed_up": contactSignedUp,
};

function handle(hook: WebhookInput): WebhookMessage | null {
  const eventType = hook.payload.get("topic").str();
  if (eventType === "ping") return null;
  const handler = Object.hasOwn(HANDLERS, eventType) ? HANDLERS[eventType] : undefined;
  if (!handler) throw hook.unsupported(eventType);
  const [topic, content] = handler(hook.payload);
  return { topic, content, eventType };
}

export default defineIntegration({
  answersHeadRequests: true,
  name: "intercom",
  displayName: "Intercom",
  categories: ["customer-support"],
  allEventTypes: Object.keys(HANDLERS),
  setup:
    "In Intercom's **Developer Hub**, open your app (or create one), go to **Webhooks**, paste the URL generated here as the " +
    "endpoint URL, select the topics you want to be notified about, and save.",
  handle,
});
