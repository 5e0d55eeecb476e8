import { describe, expect, it } from "vitest";
import { fixture, useWebhookHarness } from "./support.js";

/**
 * Zulip's slack_incoming: blocks and attachments rendered as Zulip's slack_message_conversion
 * does, the text (after its icon_emoji) only when they say nothing, Slack's links and mrkdwn
 * converted; Slack's answer shapes ({ok: true}, and {ok: false, error} on errors).
 */
const h = useWebhookHarness();

interface SlackCase {
  name: string;
  payload: unknown;
  contentType?: string;
  query?: Record<string, string>;
  topic?: string;
  content?: string;
  noop?: true;
}

/** Zulip sends "(no topic)" to the empty topic, which clients without empty_topic_name see as the realm's display name. */
const NO_TOPIC = "general chat";

const OK = { status: 200, body: { result: "success", msg: "", ok: true } };

function itPostsSlack(cases: readonly SlackCase[]): void {
  for (const c of cases) {
    it(c.name, async () => {
      const before = (await h.newest())?.id ?? 0;
      const res = await h.post("slack_incoming", c.payload, { contentType: c.contentType, query: c.query });
      expect(res).toEqual(OK);
      const posted = (await h.since(before)).map(({ topic, content }) => ({ topic, content }));
      expect(posted).toEqual(c.noop ? [] : [{ topic: c.topic, content: c.content }]);
    });
  }
}

describe("slack_incoming", () => {
  itPostsSlack([
    { name: "text", payload: { text: "Hello, world." }, topic: NO_TOPIC, content: "Hello, world." },
    {
      name: "a form's payload field, its channel as the topic, icon_emoji before the text",
      payload: fixture("slack_incoming", "urlencoded_text.txt"),
      contentType: "application/x-www-form-urlencoded",
      topic: "devops",
      content: ":zap: chris has started deploying project tag v0.0.2rc10 to staging",
    },
    {
      name: "the URL's topic wins over the channel",
      payload: { channel: "#ops", text: "hi" },
      query: { topic: "chosen" },
      topic: "chosen",
      content: "hi",
    },
    {
      name: "blocks: sections, accessories, a single field; the text beside them is not posted",
      payload: fixture("slack_incoming", "blocks"),
      topic: NO_TOPIC,
      content:
        "Danny Torrence left the following review for your property:\n\n[Overlook Hotel](https://example.com) \n :star: \n Doors had too many axe holes, guest in room 237 was far too rowdy.\n\n[Haunted hotel image](https://example.com/hotel.jpg)\n\n**Average Rating**\n1.0",
    },
    {
      name: "blocks: header, divider, image, context, a table of fields, unrendered blocks",
      payload: fixture("slack_incoming", "complicated"),
      topic: "tasks",
      content:
        "## Hello from TaskBot\n\nUse the `/task` command, or the **Create a Task** action.\n\n----\n\n[cute cat](https://example.com/cat.jpg)\n\nView all tasks with `/task list`\n\n[icon](https://example.com/icon.png)\n\n| | |\n|-|-|\n| one | two lines |\n| a b | four |\n| five |  |",
    },
    {
      name: "attachments: ## titles, fields with and without titles, image, footer, time",
      payload: fixture("slack_incoming", "attachment"),
      topic: "prometheus-alerts",
      content:
        "## [[FIRING:1] InstanceDown for api-server](https://alertmanager.example.com/#/alerts)\n\n**Alert details**:\n\napi-server at 10.0.0.4:8080 *could not* be scraped\n\n**Severity**: critical\n**Runbook**: [Runbook](https://runbook.example.com/1)\n**Title with null value**\n**Title without value**\nValue with null title\nValue without title\n\n[](https://example.com/graph.png)\n\nAlertmanager\n\n<time:2022-06-23T00:48:26+00:00>\n\n## Second\n\nstring ts\n\n<time:2022-06-23T00:48:26+00:00>",
    },
    {
      name: "an attachment-only payload posts the attachment",
      payload: { attachments: [{ title: "Build 42", title_link: "https://ci.example.com/42", text: "all green" }] },
      topic: NO_TOPIC,
      content: "## [Build 42](https://ci.example.com/42)\n\nall green",
    },
    { name: "attachments of nothing post nothing", payload: fixture("slack_incoming", "attachment_pieces_all_null"), noop: true },
    { name: "no text posts nothing", payload: { text: null, icon_emoji: ":x:" }, noop: true },
    { name: "bold", payload: { text: "some *foo* word" }, topic: NO_TOPIC, content: "some **foo** word" },
    { name: "bold alone", payload: { text: "*foo*" }, topic: NO_TOPIC, content: "**foo**" },
    { name: "bold twice", payload: { text: "*foo* *bar*" }, topic: NO_TOPIC, content: "**foo** **bar**" },
    { name: "no bold inside words", payload: { text: "*foo*a*bar*" }, topic: NO_TOPIC, content: "*foo*a*bar*" },
    { name: "italic", payload: { text: "some _foo_ word" }, topic: NO_TOPIC, content: "some *foo* word" },
    { name: "strikethrough", payload: { text: "~gone~ now" }, topic: NO_TOPIC, content: "~~gone~~ now" },
    {
      name: "links and mailto links",
      payload: { text: "<https://example.com/a|Example> and <https://example.com/b>, mail <mailto:ops@example.com|ops@example.com>" },
      topic: NO_TOPIC,
      content: "[Example](https://example.com/a) and https://example.com/b, mail mailto:ops@example.com",
    },
    {
      name: "Slack mentions are left as Zulip's view leaves them",
      payload: { text: "<!here> ask <@U024BE7LH>" },
      topic: NO_TOPIC,
      content: "<!here> ask <@U024BE7LH>",
    },
  ]);

  it("a form without a payload field: Slack's error answer", async () => {
    const res = await h.post("slack_incoming", "text=hi", { contentType: "application/x-www-form-urlencoded" });
    expect(res).toEqual({ status: 400, body: { ok: false, error: "Missing 'payload' argument" } });
  });

  it("malformed JSON: Slack's error answer, nothing posted", async () => {
    const before = (await h.newest())?.id ?? 0;
    expect(await h.post("slack_incoming", "{nope")).toEqual({ status: 400, body: { ok: false, error: "Malformed JSON" } });
    expect(await h.post("slack_incoming", "[1]")).toMatchObject({ status: 400, body: { ok: false } });
    expect(await h.since(before)).toEqual([]);
  });

  it("a block of an unknown type is a 400, nothing posted", async () => {
    const before = (await h.newest())?.id ?? 0;
    const res = await h.post("slack_incoming", { blocks: [{ type: "carousel" }] });
    expect(res).toMatchObject({ status: 400, body: { ok: false } });
    expect(await h.since(before)).toEqual([]);
  });
});
