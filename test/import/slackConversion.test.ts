import { describe, expect, it } from "vitest";
import { ThreadTopics } from "../../src/actions/import/slackMessages.js";
import { type SlackNames, slackEmojiName, slackToMarkdown } from "../../src/lib/import/slackMarkdown.js";

const names: SlackNames = {
  user: (id) => (id === "U1" ? { id: 7, fullName: "Ann Lee" } : undefined),
  channel: (id) => (id === "C1" ? "general" : undefined),
};
const md = (text: string) => slackToMarkdown(text, names);

describe("Slack markup as Zulip Markdown", () => {
  it("converts emphasis at word edges only", () => {
    expect(md("*bold* _italic_ ~strike~")).toBe("**bold** *italic* ~~strike~~");
    expect(md("2*3*4 snake_case_name a~b~c")).toBe("2*3*4 snake_case_name a~b~c");
    expect(md("* not bold *")).toBe("* not bold *");
    expect(md("*_both_*")).toBe("***both***");
  });

  it("converts mentions, channel links, wildcards and links", () => {
    expect(md("<@U1> <@U1|ann> <@U9|zed> <@U9>")).toBe("@**Ann Lee|7** @**Ann Lee|7** @zed @U9");
    expect(md("<#C1> <#C1|old-name> <#C9|elsewhere> <#C9>")).toBe("#**general** #**general** #**elsewhere** #C9");
    expect(md("<!here> <!channel> <!everyone> <!subteam^S1|@devs>")).toBe("@**all** @**channel** @**all** @devs");
    expect(md("<https://a.example/x?a=1&amp;b=2|the *site*> <https://b.example> <mailto:x@y.z|x@y.z>")).toBe(
      "[the **site**](https://a.example/x?a=1&b=2) https://b.example [x@y.z](mailto:x@y.z)",
    );
    expect(md("1 &lt; 2 &amp;&amp; 3 &gt; 2")).toBe("1 < 2 && 3 > 2");
  });

  it("leaves code alone", () => {
    expect(md("`*x*` and *y*")).toBe("`*x*` and **y**");
    expect(md("```a *b* &lt;c&gt;```")).toBe("```\na *b* <c>\n```");
  });

  it("maps Slack's emoji names to Zulip's", () => {
    expect(slackEmojiName("thumbsup::skin-tone-3")).toBe("+1");
    expect(slackEmojiName("smile")).toBe("big_smile");
    expect(slackEmojiName("octopus")).toBe("octopus");
  });
});

describe("threads as topics (Zulip's get_zulip_thread_topic_name)", () => {
  it("names a thread by its date and first message, numbering collisions", () => {
    const topics = new ThreadTopics();
    const root = { ts: "1716199260.000100", thread_ts: "1716199260.000100" };
    expect(topics.topicFor(root, "U1", "Deploy plan")).toBe("2024-05-20 Deploy plan");
    expect(topics.topicFor({ ts: "1716199999.1", thread_ts: root.ts, parent_user_id: "U1" }, "U2", "ok")).toBe("2024-05-20 Deploy plan");
    expect(topics.topicFor({ ts: "1716200000.1", thread_ts: "1716200000.1" }, "U2", "Deploy plan")).toBe("2024-05-20 Deploy plan (2)");
    expect(topics.topicFor({ ts: "1716200001.1" }, "U2", "no thread")).toBe("imported from Slack");
    const long = topics.topicFor({ ts: "1716200002.1", thread_ts: "1716200002.1" }, "U1", "x".repeat(100));
    expect(long).toHaveLength(60);
    expect(long.endsWith("…")).toBe(true);
  });
});
