import { MalformedJsonError, MissingArgumentError } from "../../lib/errors.js";
import { Payload } from "../payload.js";
import { defineIntegration, type WebhookInput, type WebhookMessage } from "../types.js";

/**
 * Zulip's "zendesk" integration (zerver/webhooks/zendesk/view.py, authenticated with HTTP Basic
 * as Zulip's authenticated_rest_api_view, or api_key): a Zendesk trigger's notification.
 *
 * A JSON body (Zendesk's JSON webhooks) posts its `message`, or, without one, every field as a
 * list, under its `topic`, or "#<ticket_id>: <ticket_title>", or "zendesk". A form or query
 * string (Zendesk's older URL targets) names ticket_title, ticket_id and message, all required.
 * Topics are cut to 60 characters with "...".
 */
function truncate(text: string, length: number): string {
  const chars = Array.from(text);
  return chars.length > length ? chars.slice(0, length - 3).join("") + "..." : text;
}

/** A string or JSON null (Zulip's check_none_or(check_string)). */
function noneOrString(field: Payload): string | null {
  if (field.value === null) return null;
  return field.str();
}

function fromJson(payload: Payload): WebhookMessage {
  payload.dict();
  let ticketTitle: string | null = null;
  let ticketId: string | null = null;
  // Zulip tests `"ticket_title" and "ticket_id" in payload`, which is whether ticket_id is there.
  if (payload.has("ticket_id")) {
    ticketTitle = noneOrString(payload.get("ticket_title"));
    ticketId = noneOrString(payload.get("ticket_id"));
  }
  let body = "";
  if (payload.has("message")) body = payload.get("message").str();
  else {
    for (const key of payload.keys()) {
      const field = payload.get(key);
      if (field.value === "") continue;
      body += `* **${key}**: ${noneOrString(field) ?? "None"}\n`;
    }
  }
  let topic: string;
  if (payload.has("topic")) topic = truncate(payload.get("topic").str(), 60);
  else if (ticketTitle && ticketId) topic = truncate(`#${ticketId}: ${ticketTitle}`, 60);
  else topic = "zendesk";
  return { topic, content: body.trimEnd() };
}

function fromParameters(hook: WebhookInput): WebhookMessage {
  const contentType = (hook.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  const form = contentType === "application/x-www-form-urlencoded" ? new URLSearchParams(hook.rawBody) : new URLSearchParams();
  const param = (name: string): string => {
    const value = form.get(name) ?? hook.query(name);
    if (value === null || value === undefined) throw new MissingArgumentError(name);
    return value;
  };
  const ticketTitle = param("ticket_title");
  const ticketId = param("ticket_id");
  const message = param("message");
  return { topic: truncate(`#${ticketId}: ${ticketTitle}`, 60), content: message };
}

export default defineIntegration({
  name: "zendesk",
  displayName: "Zendesk",
  categories: ["customer-support"],
  // Zulip's authenticated_rest_api_view does not tell the bot's owner of a body that is not JSON.
  notifyOwnerOnInvalidJson: false,
  body: "text",
  setup:
    "In Zendesk, add a webhook (**Admin Center → Apps and integrations → Webhooks**) with the URL above, authenticated with Basic authentication (this bot's email and API key), and connect it to a trigger. The trigger's JSON body may give `ticket_id`, `ticket_title` and `message` (Zendesk placeholders such as `{{ticket.id}}`), and `topic` to choose the topic.",
  handle: (hook) => {
    const contentType = (hook.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
    const raw = hook.rawBody.trim();
    if (contentType === "application/json" || raw.startsWith("{")) {
      try {
        return fromJson(new Payload(JSON.parse(raw)));
      } catch (error) {
        if (error instanceof SyntaxError) throw new MalformedJsonError();
        throw error;
      }
    }
    return fromParameters(hook);
  },
});
