import { describe, expect, it } from "vitest";
import { sendChannelMessage } from "../support/factories.js";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

/** Linkifiers: organization patterns linkified in messages and topics (Zulip's RealmFilter). */
const t = useTestServer({ eventHeartbeatSeconds: 1 });

const add = (pattern: string, url_template: string, who = "iago") => t.post(who, "/api/v1/realm/filters", { pattern, url_template });
const list = async () => expectSuccess(await t.get("hamlet", "/api/v1/realm/linkifiers")).linkifiers;

describe("linkifier administration", () => {
  it("adds, lists, updates, reorders and removes linkifiers, with realm_linkifiers events and the /register section", async () => {
    const reg = expectSuccess(
      await t.post("hamlet", "/api/v1/register", {
        event_types: JSON.stringify(["realm_linkifiers", "realm_filters"]),
        client_capabilities: JSON.stringify({ linkifier_url_template: true }),
      }),
    );
    const legacy = expectSuccess(await t.post("cordelia", "/api/v1/register", { event_types: JSON.stringify(["realm_linkifiers"]) }));
    const first = expectSuccess(await add("  #(?P<id>[0-9]+) ", " https://github.com/zulip/zulip/issues/{id}")).id;
    const second = expectSuccess(await add("RFC(?P<rfc>[0-9]+)", "https://www.rfc-editor.org/rfc/rfc{rfc}.html")).id;
    expect(await list()).toEqual([
      { id: first, pattern: "#(?P<id>[0-9]+)", url_template: "https://github.com/zulip/zulip/issues/{id}" },
      { id: second, pattern: "RFC(?P<rfc>[0-9]+)", url_template: "https://www.rfc-editor.org/rfc/rfc{rfc}.html" },
    ]);
    expectSuccess(await t.patch("iago", `/api/v1/realm/filters/${first}`, { pattern: "#(?P<id>[0-9]+)", url_template: "https://tracker.example.com/{id}" }));
    expectSuccess(await t.patch("iago", "/api/v1/realm/linkifiers", { ordered_linkifier_ids: JSON.stringify([second, first]) }));
    expect((await list()).map((l: any) => l.id)).toEqual([second, first]);
    expectSuccess(await t.delete("iago", `/api/v1/realm/filters/${second}`));
    expect(await list()).toEqual([{ id: first, pattern: "#(?P<id>[0-9]+)", url_template: "https://tracker.example.com/{id}" }]);

    const { events } = expectSuccess(await t.get("hamlet", "/api/v1/events", { queue_id: reg.queue_id, last_event_id: "-1", dont_block: "true" }));
    expect(events.map((e: any) => e.type)).toEqual(Array(5).fill("realm_linkifiers"));
    expect(events[4].realm_linkifiers).toEqual(await list());
    // Clients without linkifier_url_template get neither events nor the list.
    const old = expectSuccess(await t.get("cordelia", "/api/v1/events", { queue_id: legacy.queue_id, last_event_id: "-1", dont_block: "true" }));
    expect(old.events.filter((e: any) => e.type !== "heartbeat")).toEqual([]);
    const state = expectSuccess(
      await t.post("hamlet", "/api/v1/register", {
        fetch_event_types: JSON.stringify(["realm_linkifiers", "realm_filters"]),
        client_capabilities: JSON.stringify({ linkifier_url_template: true }),
      }),
    );
    expect(state.realm_linkifiers).toEqual(await list());
    expect(state.realm_filters).toEqual([]);
    const oldState = expectSuccess(await t.post("hamlet", "/api/v1/register", { fetch_event_types: JSON.stringify(["realm_linkifiers"]) }));
    expect(oldState.realm_linkifiers).toEqual([]);
    expectSuccess(await t.delete("iago", `/api/v1/realm/filters/${first}`));
  });

  it("is for administrators only, and checks patterns, templates and ids as Zulip does", async () => {
    expectError(await add("#(?P<id>[0-9]+)", "https://example.com/{id}", "hamlet"), 400, "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    const bad = expectError(await add("#(?P<id>[0-9]+", "https://example.com/{id}"), 400, expect.stringMatching(/^Bad regular expression: /) as never);
    expect(Object.keys(bad.errors)).toEqual(["__all__"]);
    expect(expectError(await add("#(?P<id>[0-9]+)", "https://example.com/{id"), 400, "Invalid URL template.").errors).toEqual({
      url_template: ["Invalid URL template."],
    });
    expectError(await add("#(?P<id>[0-9]+)", "https://example.com/{id}/{other}"), 400, "Group 'other' in URL template is not present in linkifier pattern.");
    expectError(
      await add("#(?P<id>[0-9]+)-(?P<part>[a-z]+)", "https://example.com/{id}"),
      400,
      "Group 'part' in linkifier pattern is not present in URL template.",
    );
    expectError(await add("", "https://example.com/"), 400, "This field cannot be blank.");
    const id = expectSuccess(await add("T(?P<id>[0-9]+)", "https://example.com/{id}")).id;
    expectError(await add("T(?P<id>[0-9]+)", "https://example.org/{id}"), 400, "Realm filter with this Realm and Pattern already exists.");
    expectError(
      await t.patch("iago", "/api/v1/realm/filters/999999", { pattern: "X(?P<id>[0-9]+)", url_template: "https://example.com/{id}" }),
      400,
      "Linkifier not found.",
    );
    expectError(await t.delete("iago", "/api/v1/realm/filters/999999"), 400, "Linkifier not found.");
    expectError(await t.delete("hamlet", `/api/v1/realm/filters/${id}`), 400, "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    expectError(
      await t.patch("iago", "/api/v1/realm/linkifiers", { ordered_linkifier_ids: JSON.stringify([id, id]) }),
      400,
      "The ordered list must not contain duplicated linkifiers",
    );
    expectError(
      await t.patch("iago", "/api/v1/realm/linkifiers", { ordered_linkifier_ids: JSON.stringify([]) }),
      400,
      "The ordered list must enumerate all existing linkifiers exactly once",
    );
    expect(await list()).toEqual([{ id, pattern: "T(?P<id>[0-9]+)", url_template: "https://example.com/{id}" }]);
    expectSuccess(await t.delete("iago", `/api/v1/realm/filters/${id}`));
  });
});

describe("linkifiers in messages and topics", () => {
  it("link their matches in message content and topic_links, in the organization's order", async () => {
    const issue = expectSuccess(await add("#(?P<id>[0-9]+)", "https://github.com/zulip/zulip/issues/{id}")).id;
    const wide = expectSuccess(await add("#(?P<id>[0-9]+)-(?P<part>[a-z]+)", "https://example.com/{id}/{+part}{?id}")).id;
    const content = "See #123, (#45) and #9-x, not a#7 or #8b or `#10`.";
    const { result, events } = await t.captureEvents(() =>
      t.post("othello", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "bug #77 and #9-yz", content }),
    );
    const id = expectSuccess(result).id;
    const message = expectSuccess(await t.get("hamlet", `/api/v1/messages/${id}`)).message;
    // The message event has the same links (the send renders with the linkifiers and reuses them for the topic).
    const event = events.find((e) => e.event.type === "message")!.event as any;
    expect(event.message.topic_links).toEqual(message.topic_links);
    expect(event.message.topic_links).toHaveLength(2);
    expect(message.content).toBe(
      '<p>See <a href="https://github.com/zulip/zulip/issues/123">#123</a>, (<a href="https://github.com/zulip/zulip/issues/45">#45</a>) and ' +
        '<a href="https://github.com/zulip/zulip/issues/9">#9</a>-x, not a#7 or #8b or <code>#10</code>.</p>',
    );
    expect(message.topic_links).toEqual([
      { text: "#77", url: "https://github.com/zulip/zulip/issues/77" },
      { text: "#9", url: "https://github.com/zulip/zulip/issues/9" },
    ]);
    // The other order: the wider pattern matches first where both do.
    expectSuccess(await t.patch("iago", "/api/v1/realm/linkifiers", { ordered_linkifier_ids: JSON.stringify([wide, issue]) }));
    const again = await sendChannelMessage(t, "othello", "Denmark", "bug #9-yz", "#9-x");
    const later = expectSuccess(await t.get("hamlet", `/api/v1/messages/${again}`)).message;
    expect(later.content).toBe('<p><a href="https://example.com/9/x?id=9">#9-x</a></p>');
    expect(later.topic_links).toEqual([{ text: "#9-yz", url: "https://example.com/9/yz?id=9" }]);
    // Bare URLs in topics are links too.
    const urls = expectSuccess(
      await t.post("othello", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "see zulip.com and https://example.com/x #5", content: "." }),
    ).id;
    expect(expectSuccess(await t.get("hamlet", `/api/v1/messages/${urls}`)).message.topic_links).toEqual([
      { text: "zulip.com", url: "https://zulip.com" },
      { text: "https://example.com/x", url: "https://example.com/x" },
      { text: "#5", url: "https://github.com/zulip/zulip/issues/5" },
    ]);
    // Channel descriptions are rendered with them too.
    expectSuccess(
      await t.post("iago", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "linkified", description: "Tracks #42" }]) }),
    );
    const channel = expectSuccess(await t.get("iago", "/api/v1/get_stream_id", { stream: "linkified" })).stream_id;
    expect(expectSuccess(await t.get("iago", `/api/v1/streams/${channel}`)).stream.rendered_description).toBe(
      '<p>Tracks <a href="https://github.com/zulip/zulip/issues/42">#42</a></p>',
    );
    expectSuccess(await t.delete("iago", `/api/v1/realm/filters/${wide}`));
    expectSuccess(await t.delete("iago", `/api/v1/realm/filters/${issue}`));
  });
});

describe("linkifier patterns cannot stall sending", () => {
  it("matches a catastrophic backtracking pattern in linear time (RE2), and refuses what RE2 cannot run", async () => {
    // On JavaScript's RegExp, (a+)+ before a failing "b" takes about a second per two more "a"s.
    const id = expectSuccess(await add("(?P<id>(a+)+)b", "https://example.com/{id}")).id;
    const started = Date.now();
    const sent = expectSuccess(
      await t.post("othello", "/api/v1/messages", { type: "stream", to: "Denmark", topic: "a".repeat(50) + "!", content: `${"a".repeat(9000)}! and aaab` }),
    ).id;
    expect(Date.now() - started).toBeLessThan(5000);
    const message = expectSuccess(await t.get("hamlet", `/api/v1/messages/${sent}`)).message;
    expect(message.content).toBe(`<p>${"a".repeat(9000)}! and <a href="https://example.com/aaa">aaab</a></p>`);
    expect(message.topic_links).toEqual([]);
    expectSuccess(await t.delete("iago", `/api/v1/realm/filters/${id}`));
    // Backreferences and lookaround have no linear-time match: refused, as by Zulip's re2.
    expectError(await add("(?P<id>x)(?P=id)", "https://example.com/{id}"), 400, expect.stringMatching(/^Bad regular expression: /) as never);
    expectError(await add("(?<=#)(?P<id>[0-9]+)", "https://example.com/{id}"), 400, expect.stringMatching(/^Bad regular expression: /) as never);
  });
});
