import { pyStr } from "../python.js";
import { defineIntegration, type WebhookInput, type WebhookOutcome } from "../types.js";

/**
 * Zulip's "stripe" integration (zerver/webhooks/stripe/view.py): one message per Stripe event,
 * under the customer's id when the object names one. Events of Stripe products Zulip does not
 * post (Connect, issuing, orders, payouts, …) answer success and post nothing; other events it
 * does not know are unsupported.
 */

/** Zulip's ALL_EVENT_TYPES for Stripe (its duplicates dropped). */
const ALL_EVENT_TYPES = [
  "charge.dispute.closed",
  "charge.dispute.created",
  "charge.failed",
  "charge.succeeded",
  "customer.created",
  "customer.deleted",
  "customer.discount.created",
  "customer.subscription.created",
  "customer.subscription.deleted",
  "customer.subscription.trial_will_end",
  "customer.subscription.updated",
  "customer.updated",
  "invoice.created",
  "invoice.updated",
  "invoice.payment_failed",
  "invoiceitem.created",
  "charge.refund.updated",
];

/** An event Zulip deliberately posts nothing for (its SuppressedEventError). */
class Suppressed extends Error {}

const ZERO_DECIMAL_CURRENCIES = new Set(["bif", "djf", "jpy", "krw", "pyg", "vnd", "xaf", "xpf", "clp", "gnf", "kmf", "mga", "rwf", "vuv", "xof"]);

/** Zulip's amount_string: cents as f"{amount * 0.01:.02f}", dollars with a $, others with the currency code after. */
export function amountString(amount: number, currency: string): string {
  const decimal = ZERO_DECIMAL_CURRENCIES.has(currency) ? String(amount) : (amount * 0.01).toFixed(2);
  if (currency === "usd") return "$" + decimal;
  return `${decimal} ${currency.toUpperCase()}`;
}

/** Object id prefixes: the name Zulip gives the object and its dashboard path (null: no page of its own). */
const ID_PREFIXES: Readonly<Record<string, readonly [string, string | null]>> = {
  ch: ["Charge", "charges"],
  cus: ["Customer", "customers"],
  dp: ["Dispute", "disputes"],
  du: ["Dispute", "disputes"],
  file: ["File", "files"],
  link: ["File link", "file_links"],
  pi: ["Payment intent", "payment_intents"],
  po: ["Payout", "payouts"],
  prod: ["Product", "products"],
  re: ["Refund", "refunds"],
  tok: ["Token", "tokens"],
  ba: ["Bank account", null],
  card: ["Card", null],
  src: ["Source", null],
  in: ["Invoice", "invoices"],
  ii: ["Invoice item", "invoiceitems"],
  sub: ["Subscription", "subscriptions"],
  si: ["Subscription item", "subscription_items"],
  mbur: ["Usage record", null],
  py: ["Payment", "payments"],
  pyr: ["Refund", "refunds"],
};

function linkifiedId(hook: WebhookInput, id: string, lower = false): string {
  const known = ID_PREFIXES[id.split("_")[0] ?? ""];
  if (!known || !Object.hasOwn(ID_PREFIXES, id.split("_")[0] ?? "")) throw hook.anomalous();
  const [name, path] = known;
  const shown = lower ? name.toLowerCase() : name;
  if (path === null) return shown;
  return `[${shown}](https://dashboard.stripe.com/${path}/${id})`;
}

/** Zulip's stringify: timestamps of 2017–2033 as <time:…>, anything else as Python's str(). */
function stringify(value: unknown): string {
  if (typeof value === "number" && Number.isInteger(value) && value > 1500000000 && value < 2000000000) {
    return `<time:${new Date(value * 1000).toISOString().slice(0, 19)}+00:00>`;
  }
  return pyStr(value);
}

/** Python's str.capitalize(). */
function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1).toLowerCase();
}

const NOT_IMPLEMENTED_CATEGORIES = new Set([
  "application_fee",
  "balance",
  "checkout_beta",
  "coupon",
  "payment_intent",
  "payout",
  "plan",
  "product",
  "recipient",
  "reporting",
  "review",
  "sigma",
  "sku",
  "source",
  "subscription_schedule",
  "topup",
  "transfer",
]);

function topicAndBody(hook: WebhookInput, nowSeconds: number): { topic: string; body: string } {
  const { payload } = hook;
  const eventType = payload.get("type").str();
  const parts = eventType.split(".");
  let category: string, resource: string, event: string;
  if (parts.length === 3) [category, resource, event] = parts as [string, string, string];
  else if (parts.length === 2) {
    [resource, event] = parts as [string, string];
    category = resource;
  } else throw hook.anomalous();

  const data = payload.get("data");
  const object = data.get("object");
  let topic = object.get("customer").optStr() ?? "";
  let body: string | undefined;

  const updateString = (blacklist: readonly string[] = []): string => {
    const previous = data
      .get("previous_attributes")
      .dict()
      .keys()
      .filter((key) => !blacklist.includes(key))
      .sort();
    if (previous.length === 0) throw new Suppressed();
    return previous.map((attribute) => `\n* ${capitalize(attribute.replace(/_/g, " "))} is now ${stringify(object.get(attribute).required().value)}`).join("");
  };
  const defaultBody = (blacklist: readonly string[] = []): string => {
    const text = `${linkifiedId(hook, object.get("id").str())} ${event.replace(/_/g, " ")}`;
    return event === "updated" ? text + updateString(blacklist) : text;
  };

  if (category === "account") {
    if (resource !== "account") throw new Suppressed();
    if (event === "updated") {
      if (!data.has("previous_attributes")) throw new Suppressed();
      topic = "account updates";
      body = updateString();
    }
  }
  if (NOT_IMPLEMENTED_CATEGORIES.has(category) || category.startsWith("issuing") || category.startsWith("order")) throw new Suppressed();
  if (category === "charge") {
    if (resource === "charge") {
      if (!topic) topic = "charges";
      body = `${linkifiedId(hook, object.get("id").str())} for ${amountString(object.get("amount").int(), object.get("currency").str())} ${event}`;
      if (object.get("failure_code").required().truthy()) body += `. Failure code: ${object.get("failure_code").str()}`;
    }
    if (resource === "dispute") {
      topic = "disputes";
      body = defaultBody() + `. Current status: ${object.get("status").str().replace(/_/g, " ")}.`;
    }
    if (resource === "refund") {
      topic = "refunds";
      const amount = amountString(object.get("amount").int(), object.get("currency").str());
      body = `A ${linkifiedId(hook, object.get("id").str(), true)} for a ${linkifiedId(hook, object.get("charge").str(), true)} of ${amount} was updated.`;
    }
  }
  if (category === "customer") {
    if (resource === "customer") {
      topic = object.get("id").str();
      body = defaultBody(["delinquent", "currency", "default_source"]);
      if (event === "created") {
        if (object.get("email").required().truthy()) body += `\nEmail: ${object.get("email").str()}`;
        if (object.get("metadata").required().truthy()) {
          const metadata = object.get("metadata");
          for (const key of metadata.keys()) body += `\n${key}: ${metadata.get(key).str()}`;
        }
      }
    }
    if (resource === "discount") {
      const coupon = object.get("coupon");
      body = `Discount ${event.replace(/_/g, " ")} ([${coupon.get("name").str()}](https://dashboard.stripe.com/coupons/${coupon.get("id").str()})).`;
    }
    if (resource === "source") body = defaultBody();
    if (resource === "subscription") {
      body = defaultBody();
      if (event === "trial_will_end") {
        const DAY = 60 * 60 * 24;
        body += ` in ${Math.floor((object.get("trial_end").int() - nowSeconds + DAY / 2) / DAY)} days`;
      }
      if (event === "created") {
        if (object.get("plan").required().truthy()) {
          const plan = object.get("plan");
          const nickname = plan.get("nickname").optStr();
          body +=
            nickname !== undefined
              ? `\nPlan: [${nickname}](https://dashboard.stripe.com/plans/${plan.get("id").str()})`
              : `\nPlan: https://dashboard.stripe.com/plans/${plan.get("id").str()}`;
        }
        if (object.get("quantity").required().truthy()) body += `\nQuantity: ${object.get("quantity").int()}`;
        if (object.has("billing")) body += `\nBilling method: ${object.get("billing").str().replace(/_/g, " ")}`;
      }
    }
  }
  if (category === "file") {
    topic = "files";
    body = defaultBody() + ` (${object.get("purpose").str().replace(/_/g, " ")}). \nTitle: ${object.get("title").str()}`;
  }
  if (category === "invoice") {
    if (event === "upcoming") body = "Upcoming invoice created";
    else if (
      event === "updated" &&
      data.get("previous_attributes").dict().get("paid").optBool() === false &&
      object.get("paid").bool() &&
      object.get("amount_paid").int() !== 0 &&
      object.get("amount_remaining").int() === 0
    ) {
      body = `[Invoice](https://dashboard.stripe.com/invoices/${object.get("id").str()}) is now paid`;
    } else body = defaultBody(["lines", "description", "number", "finalized_at", "status_transitions", "payment_intent"]);
    if (event === "created") {
      const currency = object.get("currency").str();
      const reason = object.get("billing_reason").str().replace(/_/g, " ");
      body += ` (${reason})\nTotal: ${amountString(object.get("total").int(), currency)}\nAmount due: ${amountString(object.get("amount_due").int(), currency)}`;
    }
  }
  if (category === "invoiceitem") {
    body = defaultBody(["description", "invoice"]);
    if (event === "created") body += ` for ${amountString(object.get("amount").int(), object.get("currency").str())}`;
  }
  if (body === undefined) throw hook.unsupported(eventType);
  return { topic, body };
}

function handle(hook: WebhookInput): WebhookOutcome {
  try {
    const { topic, body } = topicAndBody(hook, Date.now() / 1000);
    return { topic, content: body, eventType: hook.payload.get("type").str() };
  } catch (error) {
    if (error instanceof Suppressed) return null;
    throw error;
  }
}

export default defineIntegration({
  name: "stripe",
  displayName: "Stripe",
  categories: ["financial"],
  allEventTypes: ALL_EVENT_TYPES,
  setup:
    "In Stripe's dashboard, open **Developers → Webhooks**, add an endpoint with the URL above, and choose the events to send (charges, customers, invoices, subscriptions, …).",
  handle,
});
