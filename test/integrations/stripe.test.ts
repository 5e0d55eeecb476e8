import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

/** Zulip's stripe integration: one message per event, the topic the customer when there is one. */
const h = useWebhookHarness();
const CUSTOMER = "cus_PfTQhZnZkW1bvE";
const SUBSCRIPTION = "[Subscription](https://dashboard.stripe.com/subscriptions/sub_E6STM5w5EX3K28)";
const stripe = (name: string) => fixture("stripe", name);

describe("stripe", () => {
  itPosts(h, "stripe", [
    {
      name: "charge.succeeded by card",
      payload: stripe("charge_succeeded__card"),
      topic: CUSTOMER,
      content: "[Charge](https://dashboard.stripe.com/charges/ch_3Oq2Jx2eZvKYlo2C0Zb8lXq1) for 1.00 AUD succeeded",
    },
    {
      name: "charge.succeeded of a payment in dollars",
      payload: stripe("charge_succeeded__ach"),
      topic: CUSTOMER,
      content: "[Payment](https://dashboard.stripe.com/payments/py_1DcLzqHLwdCOCoR7ZyLc0YQb) for $1.00 succeeded",
    },
    {
      name: "charge.succeeded in a zero-decimal currency",
      payload: stripe("charge_succeeded__jpy"),
      topic: CUSTOMER,
      content: "[Charge](https://dashboard.stripe.com/charges/ch_3Oq2Kc2eZvKYlo2C1k3nYp0a) for 500 JPY succeeded",
    },
    {
      name: "charge.failed without a customer, with its failure code",
      payload: stripe("charge_failed"),
      topic: "charges",
      content: "[Charge](https://dashboard.stripe.com/charges/ch_00000000000000) for 1.00 AUD failed. Failure code: card_declined",
    },
    {
      name: "charge.dispute.created",
      payload: stripe("charge_dispute_created"),
      topic: "disputes",
      content: "[Dispute](https://dashboard.stripe.com/disputes/dp_1Oq2Nn2eZvKYlo2C3f9WAd1k) created. Current status: needs response.",
    },
    {
      name: "charge.dispute.closed",
      payload: stripe("charge_dispute_closed"),
      topic: "disputes",
      content: "[Dispute](https://dashboard.stripe.com/disputes/dp_1Oq2Nn2eZvKYlo2C3f9WAd1k) closed. Current status: won.",
    },
    {
      name: "charge.refund.updated",
      payload: stripe("charge_refund_updated"),
      topic: "refunds",
      content:
        "A [refund](https://dashboard.stripe.com/refunds/re_1Gib6ZHLwdCOCoR7VrzCnXlj) for a [charge](https://dashboard.stripe.com/charges/ch_1Gib61HLwdCOCoR71rnkccye) of 3000.00 INR was updated.",
    },
    {
      name: "customer.created with its email and metadata",
      payload: stripe("customer_created"),
      topic: CUSTOMER,
      content: `[Customer](https://dashboard.stripe.com/customers/${CUSTOMER}) created\nEmail: alice@example.com\nplan_tier: gold\nsignup_source: website`,
    },
    {
      name: "customer.deleted",
      payload: stripe("customer_deleted"),
      topic: CUSTOMER,
      content: `[Customer](https://dashboard.stripe.com/customers/${CUSTOMER}) deleted`,
    },
    {
      name: "customer.updated lists what changed, as Python writes the values",
      payload: stripe("customer_updated__balance"),
      topic: CUSTOMER,
      content: [
        `[Customer](https://dashboard.stripe.com/customers/${CUSTOMER}) updated`,
        "* Account balance is now 100",
        "* Discount is now None",
        "* Invoice settings is now {'custom_fields': None, 'default_payment_method': 'pm_1Oq'}",
        "* Preferred locales is now ['en', 'fr']",
        "* Trial end is now <time:2019-11-01T12:00:00+00:00>",
      ].join("\n"),
    },
    { name: "customer.updated of only the delinquency is not posted", payload: stripe("customer_updated__delinquency"), ignored: true },
    {
      name: "customer.discount.created",
      payload: stripe("customer_discount_created"),
      topic: CUSTOMER,
      content: "Discount created ([25.5% off](https://dashboard.stripe.com/coupons/25_5OFF)).",
    },
    {
      name: "customer.subscription.created",
      payload: stripe("customer_subscription_created"),
      topic: CUSTOMER,
      content: `${SUBSCRIPTION} created\nPlan: [flatrate](https://dashboard.stripe.com/plans/plan_E6SQ6RAtmLVtzg)\nQuantity: 800\nBilling method: send invoice`,
    },
    {
      name: "customer.subscription.created, a plan without a nickname",
      payload: stripe("customer_subscription_created__no_nickname"),
      topic: CUSTOMER,
      content: `${SUBSCRIPTION} created\nPlan: https://dashboard.stripe.com/plans/plan_E6SQ6RAtmLVtzg\nQuantity: 1`,
    },
    {
      name: "customer.subscription.updated",
      payload: stripe("customer_subscription_updated"),
      topic: CUSTOMER,
      content: [
        `${SUBSCRIPTION} updated`,
        "* Billing cycle anchor is now <time:2019-11-01T12:00:00+00:00>",
        "* Cancel at period end is now False",
        "* Current period end is now <time:2019-11-01T12:00:00+00:00>",
        "* Current period start is now <time:2018-12-06T05:53:55+00:00>",
        "* Status is now trialing",
        "* Trial end is now <time:2019-11-01T12:00:00+00:00>",
      ].join("\n"),
    },
    {
      name: "customer.subscription.deleted",
      payload: stripe("customer_subscription_deleted"),
      topic: CUSTOMER,
      content: "[Subscription](https://dashboard.stripe.com/subscriptions/sub_00000000000000) deleted",
    },
    {
      name: "invoice.created",
      payload: stripe("invoice_created"),
      topic: "cus_HH97asvHvaYQYp",
      content:
        "[Invoice](https://dashboard.stripe.com/invoices/in_1GpmuuHLwdCOCoR7ghzQDQLW) created (subscription create)\nTotal: 20.00 EUR\nAmount due: 20.00 EUR",
    },
    {
      name: "invoice.payment_failed",
      payload: stripe("invoice_payment_failed"),
      topic: "cus_HH97asvHvaYQYp",
      content: "[Invoice](https://dashboard.stripe.com/invoices/in_00000000000000) payment failed",
    },
    {
      name: "invoice.updated to paid",
      payload: stripe("invoice_updated__paid"),
      topic: "cus_HH97asvHvaYQYp",
      content: "[Invoice](https://dashboard.stripe.com/invoices/in_1EjLINHuGUuNWDDZjDf2WNqd) is now paid",
    },
    {
      name: "invoice.updated otherwise, without the attributes Zulip leaves out",
      payload: stripe("invoice_updated__open"),
      topic: "cus_HH97asvHvaYQYp",
      content: "[Invoice](https://dashboard.stripe.com/invoices/in_1GpmuuHLwdCOCoR7ghzQDQLW) updated\n* Status is now open",
    },
    {
      name: "invoiceitem.created",
      payload: stripe("invoiceitem_created"),
      topic: CUSTOMER,
      content: "[Invoice item](https://dashboard.stripe.com/invoiceitems/ii_1Oq2Sx2eZvKYlo2CZ8mH) created for 10.00 CAD",
    },
    { name: "payouts are not posted", payload: stripe("payout_paid"), ignored: true },
    { name: "account.updated without previous attributes is not posted", payload: stripe("account_updated__no_previous"), ignored: true },
    { name: "an event Zulip does not know", payload: stripe("customer_tax_id_created"), ignored: { unsupportedEvent: "customer.tax_id.created" } },
    { name: "only_events leaves charges out", payload: stripe("charge_succeeded__card"), query: { only_events: '["customer.*", "invoice.*"]' }, ignored: true },
  ]);

  it("customer.subscription.trial_will_end counts the days left", async () => {
    const payload = stripe("customer_subscription_trial_will_end") as any;
    payload.data.object.trial_end = Math.floor(Date.now() / 1000) + 3 * 24 * 3600 + 100;
    const before = (await h.newest())?.id ?? 0;
    expect((await h.post("stripe", payload)).status).toBe(200);
    expect((await h.since(before)).map(({ topic, content }) => ({ topic, content }))).toEqual([
      { topic: CUSTOMER, content: "[Subscription](https://dashboard.stripe.com/subscriptions/sub_00000000000000) trial will end in 3 days" },
    ]);
  });

  it("a charge without its amount is a 400, nothing posted", async () => {
    const payload = stripe("charge_succeeded__card") as any;
    delete payload.data.object.amount;
    const before = (await h.newest())?.id ?? 0;
    expect(await h.post("stripe", payload)).toMatchObject({ status: 400, body: { result: "error", msg: "payload['data']['object']['amount'] is missing" } });
    expect(await h.since(before)).toEqual([]);
  });
});
