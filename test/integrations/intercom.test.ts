import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness, type WebhookCase } from "./support.js";

const ic = (name: string) => fixture("intercom", name);
const post = (name: string, topic: string, content: string): WebhookCase => ({ name, payload: ic(name), topic, content });
const AZURE = "Contact: Azure Bus from St. John's";
const LOCATION = "St. John's, Newfoundland and Labrador, Canada";
const CORDELIA = "Cordelia, Lear's daughter";

describe("Intercom webhook", () => {
  const h = useWebhookHarness();

  itPosts(h, "intercom", [
    { name: "ping posts nothing", payload: ic("ping"), ignored: true },
    post("company_created", "Companies", "New company **Kandra Labs** created:\n* **User count**: 1\n* **Monthly spending**: 0"),
    post("contact_added_email", AZURE, "New email jerry@example.com added to contact."),
    post(
      "contact_created",
      AZURE,
      `New contact created:\n* **Name (or pseudonym)**: Azure Bus from St. John's\n* **Email**: aaron@example.com\n* **Location**: ${LOCATION}`,
    ),
    post("contact_signed_up", "User: Lilac Raindrop from St. John's", `Contact signed up:\n* **Email**: iago@example.com\n* **Location**: ${LOCATION}`),
    post("contact_tag_created", "Contact: Eeshan Garg", "Contact tagged with the `developer` tag."),
    post("conversation_admin_assigned", "Lead: Eeshan Garg", "Tim Abbott assigned to conversation."),
    post("conversation_admin_closed", "Lead: Eeshan Garg", `${CORDELIA} closed the conversation.`),
    post("conversation_admin_snoozed", "Lead: Eeshan Garg", `${CORDELIA} snoozed the conversation.`),
    post(
      "conversation_admin_replied",
      "Lead: Eeshan Garg",
      `${CORDELIA} replied to the conversation:\n\n\`\`\` quote\nHey Eeshan! How can I help? Try Settings & help.\n\`\`\``,
    ),
    post(
      "conversation_admin_noted",
      "Lead: Eeshan Garg",
      `${CORDELIA} added a note to the conversation:\n\n\`\`\` quote\nTalk to Tim about this user's query.\n\`\`\``,
    ),
    post("conversation_admin_single_created", "Lead: Eeshan Garg", `${CORDELIA} initiated a conversation:\n\n\`\`\` quote\nHi Eeshan, What's up\n\`\`\``),
    post(
      "conversation_user_created",
      "Lead: Rose Poodle from St. John's",
      "Rose Poodle from St. John's initiated a conversation:\n\n``` quote\nHello everyone!alert(1)\n```",
    ),
    post(
      "conversation_user_replied",
      "Lead: Eeshan Garg",
      "Eeshan Garg replied to the conversation:\n\n``` quote\nWell, I need some help getting access to a developer account.\n```",
    ),
    post("event_created", "Events", "New event **invited-friend** created."),
    post("user_created", "User: Aaron Smith", "New user created:\n* **Name**: Aaron Smith\n* **Email**: aaron@example.com"),
    post("user_deleted", "User: jerry@example.com", "User deleted."),
    post("user_email_updated", AZURE, "User's email was updated to aaron@example.com."),
    post("user_tag_deleted", "User: eeshangarg", "The tag `CSV Import - 2026-03-26 22:46:04 UTC` was removed from the user."),
    post("user_unsubscribed", "Contact: Eeshan Garg", "User unsubscribed from emails."),
    post("visitor_signed_up", "Visitor: Lilac Raindrop from St. John's", `Contact signed up:\n* **Email**: iago@example.com\n* **Location**: ${LOCATION}`),
    {
      name: "an unknown topic is unsupported",
      payload: { ...(ic("user_deleted") as object), topic: "contact.archived" },
      ignored: { unsupportedEvent: "contact.archived" },
    },
    { name: "only_events filters by Intercom's topic", payload: ic("event_created"), query: { only_events: '["user.*"]' }, ignored: true },
  ]);

  it("a company without its user count is a 400 and posts nothing", async () => {
    const before = (await h.newest())?.id ?? 0;
    const payload = structuredClone(ic("company_created")) as { data: { item: Record<string, unknown> } };
    delete payload.data.item.user_count;
    const res = await h.post("intercom", payload);
    expect(res.status).toBe(400);
    expect(res.body.msg).toContain("payload['data']['item']['user_count']");
    expect(await h.since(before)).toEqual([]);
  });
});
