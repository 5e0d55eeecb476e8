import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFound } from "../support/browser.js";
import { callJson as call, sidebarCount, useWebApp, openCompose, sendToChannel } from "../support/webApp.js";
import { seedChannels } from "../support/seed.js";

// The web app's views and tools in a real Chromium, two people in two browser contexts: recent
// conversations, the emoji picker, search suggestions, moving and resolving topics, and the
// outbox that keeps a failed message across a reload.
const web = useWebApp();
let hamlet: Page;
let othello: Page;
const OTHELLO_ID = 12;
const VERONA = seedChannels.verona.id;
const DENMARK = seedChannels.denmark.id;
const shots = process.env.PARLEY_SCREENSHOTS;

const send = sendToChannel;

const topicHash = (channel: string, topic: string) => `#narrow/channel/${channel}/topic/${topic}`;
const row = (page: Page, text: string) => page.locator(".message", { has: page.locator(`.content:has-text('${text}')`) });

describe.skipIf(!chromiumFound)("the web app's views in Chromium", () => {
  beforeAll(async () => {
    await web.setUp();
    hamlet = await web.signIn("King Hamlet");
    othello = await web.signIn("Othello, the Moor of Venice");
  }, 120_000);
  afterAll(async () => {
    await web.tearDown();
  });

  it("shows recent conversations with participants and unread counts, live, and opens one on a click", async () => {
    await hamlet.goto(`${web.server.baseUrl}/#recent_topics`);
    await expect.poll(() => hamlet.evaluate(() => location.hash)).toBe("#recent");
    await expect.poll(() => hamlet.locator(".view-title").textContent()).toBe("Recent conversations");
    await hamlet.waitForSelector(".recent tbody tr");
    const rows = hamlet.locator(".recent tbody tr");
    // Othello writes in a new topic, then in a DM: each comes to the top of Hamlet's table, unread.
    await send(othello, VERONA, "recent check", "A new topic for the recent view");
    await expect.poll(() => rows.first().locator(".topic").textContent()).toBe("recent check");
    const top = rows.first();
    expect(await top.locator(".where").textContent()).toBe("Verona");
    expect(await top.locator(".people .avatar").getAttribute("aria-label")).toBe("Othello, the Moor of Venice");
    expect(await top.locator(".count").textContent()).toBe("1");
    expect(await top.locator(".when").textContent()).toBe("just now");
    await send(hamlet, VERONA, "recent check", "Hamlet joins in");
    await expect.poll(() => rows.first().locator(".people .avatar").count()).toBe(2);
    expect(await rows.first().locator(".people .avatar").first().getAttribute("aria-label")).toBe("King Hamlet");
    await call(othello, "POST", "/messages", { type: "direct", to: JSON.stringify([10]), content: "A DM for the recent view" });
    await expect.poll(() => rows.first().locator(".topic").textContent()).toBe("Othello, the Moor of Venice");
    expect(await rows.first().locator(".where").textContent()).toBe("Direct message");
    if (shots) await hamlet.screenshot({ path: `${shots}/recent.png` });

    // A click on the row (not on a link) opens the conversation; seen there, it is read. Seen
    // means shown in the focused window (reading.ts), so Hamlet's page is the one in front.
    await hamlet.bringToFront();
    await rows.nth(1).locator(".when").click();
    await expect.poll(() => hamlet.locator(".view-title").textContent()).toBe("#Verona › recent check");
    expect(hamlet.url()).toContain(topicHash("1-Verona", "recent.20check"));
    await hamlet.waitForSelector(".message .content:has-text('A new topic for the recent view')");
    // Read once seen (the list's IntersectionObserver reports it a frame or more after it shows):
    // going back before that would leave it unread, as for a person who never saw it.
    const seen = hamlet.locator(".message[data-unread]", { has: hamlet.locator(".content:has-text('A new topic for the recent view')") });
    await expect.poll(() => seen.count(), { timeout: 5000 }).toBe(0);
    await hamlet.goBack();
    await expect.poll(() => hamlet.locator(".view-title").textContent()).toBe("Recent conversations");
    await expect.poll(() => hamlet.locator(".recent tbody tr", { hasText: "recent check" }).locator(".count").count()).toBe(0);
  }, 40_000);

  it("reacts through the emoji picker, found by search, its data loaded only when opened", async () => {
    for (const page of [hamlet, othello]) await page.goto(`${web.server.baseUrl}/${topicHash("1-Verona", "emoji")}`);
    await send(othello, VERONA, "emoji", "React to me");
    await hamlet.waitForSelector(".message .content:has-text('React to me')");
    const emojiChunks = () => hamlet.evaluate(() => performance.getEntriesByType("resource").filter((e) => /emojiTable/.test(e.name)).length);
    expect(await emojiChunks()).toBe(0);

    await row(hamlet, "React to me").hover();
    await row(hamlet, "React to me").locator("button[title='Add emoji reaction']").click();
    await hamlet.waitForSelector(".emoji-picker .emoji-grid button");
    expect(await emojiChunks()).toBe(1);
    // The emoji in view are drawn within a frame or two of opening (the picker observes its grid).
    await expect.poll(() => hamlet.locator(".emoji-grid button img").count()).toBeGreaterThan(20);
    if (shots) await hamlet.screenshot({ path: `${shots}/emoji-picker.png` });
    await hamlet.fill(".emoji-picker input", "octo");
    await expect.poll(() => hamlet.locator(".emoji-grid button").first().getAttribute("title")).toBe(":octopus:");
    await hamlet.locator(".emoji-grid button").first().click();
    await expect.poll(() => row(othello, "React to me").locator(".reaction").textContent()).toBe("🐙 1");
    await expect.poll(() => hamlet.locator(".emoji-picker").count()).toBe(0);
  }, 40_000);

  it("inserts an emoji found by an alias into the compose box with Enter", async () => {
    await hamlet.goto(`${web.server.baseUrl}/${topicHash("1-Verona", "emoji")}`);
    await hamlet.waitForSelector(".message .content:has-text('React to me')");
    await openCompose(hamlet);
    await hamlet.fill(".compose textarea", "Party");
    await hamlet.click(".compose .emoji-button");
    await hamlet.fill(".emoji-picker input", "tad");
    await expect.poll(() => hamlet.locator(".emoji-grid button").first().getAttribute("title")).toBe(":tada:");
    await hamlet.press(".emoji-picker input", "Enter");
    expect(await hamlet.locator(".compose textarea").inputValue()).toBe("Party :tada:");
    await hamlet.press(".compose textarea", "Control+Enter");
    // The sender's own list first (its send), then the receiver's (its event).
    await hamlet.waitForSelector(".message .content:has-text('Party 🎉')", { timeout: 15_000 });
    await othello.waitForSelector(".message .content:has-text('Party 🎉')", { timeout: 15_000 });
  }, 40_000);

  it("offers a custom emoji in the picker as soon as it is added, and closes the picker on Escape", async () => {
    await othello.goto(`${web.server.baseUrl}/${topicHash("1-Verona", "emoji")}`);
    await othello.waitForSelector(".message .content:has-text('React to me')");
    // A custom emoji, added now, is in Othello's picker at once (realm_emoji event).
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    const uploaded = await hamlet.evaluate(async (data) => {
      const token = document.querySelector<HTMLMetaElement>('meta[name="parley-csrf-token"]')!.content;
      const form = new FormData();
      form.append("file", new Blob([Uint8Array.from(atob(data), (c) => c.charCodeAt(0))], { type: "image/png" }), "parley.png");
      return (await fetch("/json/realm/emoji/parley_logo", { method: "POST", headers: { "X-CSRFToken": token }, body: form })).json();
    }, png);
    expect(uploaded.result).toBe("success");
    await row(othello, "React to me").hover();
    await row(othello, "React to me").locator("button[title='Add emoji reaction']").click();
    await othello.fill(".emoji-picker input", "parley");
    await expect.poll(() => othello.locator(".emoji-grid button").first().getAttribute("title")).toBe(":parley_logo:");
    await expect.poll(() => othello.locator(".emoji-grid button img").count()).toBe(1);
    await othello.locator(".emoji-grid button").first().click();
    await expect.poll(() => row(hamlet, "React to me").locator(".reaction img[alt=':parley_logo:']").count()).toBe(1);
    // Escape closes the picker without picking.
    await openCompose(othello);
    await othello.click(".compose .emoji-button");
    await othello.press(".emoji-picker input", "Escape");
    await expect.poll(() => othello.locator(".emoji-picker").count()).toBe(0);
  }, 40_000);

  it("draws Zulip's :zulip: emoji as its image in the picker, on reactions, in messages and in a status", async () => {
    for (const page of [hamlet, othello]) await page.goto(`${web.server.baseUrl}/${topicHash("1-Verona", "zulip.20emoji")}`);
    await send(othello, VERONA, "zulip emoji", "Made with :zulip:");
    const loaded = (image: ReturnType<Page["locator"]>) =>
      image.evaluate((img: HTMLImageElement) => [img.complete, img.naturalWidth, new URL(img.src).pathname]);
    const zulipPng = [true, 64, "/static/generated/emoji/images/emoji/unicode/zulip.png"];
    await expect.poll(() => loaded(row(hamlet, "Made with").locator(".content img.emoji"))).toEqual(zulipPng);

    await row(hamlet, "Made with").hover();
    await row(hamlet, "Made with").locator("button[title='Add emoji reaction']").click();
    await hamlet.fill(".emoji-picker input", "zulip");
    await expect.poll(() => hamlet.locator(".emoji-grid button").first().getAttribute("title")).toBe(":zulip:");
    await expect.poll(() => loaded(hamlet.locator(".emoji-grid button img").first())).toEqual(zulipPng);
    if (shots) await hamlet.screenshot({ path: `${shots}/emoji-picker-zulip.png` });
    await hamlet.locator(".emoji-grid button").first().click();
    for (const page of [hamlet, othello]) {
      await expect.poll(() => loaded(row(page, "Made with").locator(".reaction img[alt=':zulip:']"))).toEqual(zulipPng);
      expect(await row(page, "Made with").locator(".reaction").textContent()).toBe(" 1");
    }
    if (shots) await othello.screenshot({ path: `${shots}/reaction-zulip.png` });

    // Othello's status with :zulip:, on his card in Hamlet's window.
    expect((await call(othello, "POST", "/users/me/status", { status_text: "Building", emoji_name: "zulip" })).result).toBe("success");
    await hamlet.locator(`.user-list li[data-user-id='${OTHELLO_ID}'] a`).click();
    await expect.poll(() => hamlet.locator(".user-card .card-status").textContent()).toContain("Building");
    await expect.poll(() => loaded(hamlet.locator(".user-card .card-status .status-emoji img"))).toEqual(zulipPng);
    if (shots) await hamlet.screenshot({ path: `${shots}/status-zulip.png` });
    await hamlet.keyboard.press("Escape");
    expect((await call(othello, "POST", "/users/me/status", { status_text: "", emoji_name: "" })).result).toBe("success");
  }, 40_000);

  it("suggests operators, channels, topics, people and is:/has: values as the search is typed", async () => {
    await hamlet.goto(`${web.server.baseUrl}/${topicHash("1-Verona", "recent.20check")}`);
    await hamlet.waitForSelector(".sidebar .topics li");
    const box = hamlet.locator(".search input");
    const suggestions = () => hamlet.locator(".suggestions li .query").allTextContents();
    await box.click();
    await expect.poll(suggestions).toEqual(["channel:", "topic:", "sender:", "dm:", "is:", "has:"]);
    await box.pressSequentially("cha");
    await expect.poll(suggestions).toEqual(["cha", "channel:"]);
    await hamlet.click(".suggestions li:has-text('channel:')");
    expect(await box.inputValue()).toBe("channel:");
    await box.pressSequentially("ver");
    await expect.poll(suggestions).toEqual(["channel:Verona"]);
    // Tab does not complete (it moves the focus on, as in Zulip): the rest is typed.
    await box.pressSequentially("ona ");
    await box.pressSequentially("topic:rec");
    await expect.poll(suggestions).toEqual(["channel:verona topic:recent+check"]);
    if (shots) await hamlet.screenshot({ path: `${shots}/search-suggestions.png` });
    await hamlet.click(".suggestions li");
    await expect.poll(() => hamlet.locator(".view-title").textContent()).toBe("#Verona › recent check");

    await box.fill("");
    await box.pressSequentially("sender:oth");
    await expect.poll(suggestions).toEqual(["sender:othello@zulip.com"]);
    await box.fill("");
    await box.pressSequentially("-is:res");
    await expect.poll(() => hamlet.locator(".suggestions li .what").allTextContents()).toEqual(["Exclude topics marked as resolved"]);
    await box.fill("");
    await box.pressSequentially("has:li");
    await expect.poll(suggestions).toEqual(["has:link"]);
    // Keyboard: down to a suggestion, Enter searches it.
    await box.fill("");
    await box.pressSequentially("othello");
    await expect.poll(suggestions).toEqual(["othello", "sender:othello@zulip.com", "dm:othello@zulip.com"]);
    await box.press("ArrowDown");
    await box.press("Enter");
    await expect.poll(() => hamlet.evaluate(() => location.hash)).toBe(`#narrow/sender/${OTHELLO_ID}-Othello,-the-Moor-of-Venice`);
    await hamlet.waitForSelector(".message .content:has-text('React to me')");
  }, 40_000);

  const othelloTopic = (name: string) => othello.locator(`.sidebar [data-channel-id='${VERONA}'] .topics li[data-topic='${name}']`);
  /** Hamlet's visibility policy for a Verona topic (3: followed), from POST /register. */
  const followPolicy = async (topic: string): Promise<number> =>
    (await call(hamlet, "POST", "/register", { fetch_event_types: JSON.stringify(["user_topic"]) })).user_topics.find(
      (t: any) => t.stream_id === VERONA && t.topic_name === topic,
    )?.visibility_policy ?? 0;
  /** Othello on a Verona topic, so that his sidebar lists Verona's topics. */
  async function othelloInVerona(): Promise<void> {
    await othello.goto(`${web.server.baseUrl}/${topicHash("1-Verona", "recent.20check")}`);
    await othello.waitForSelector(".sidebar .topics li");
  }

  it("renames a whole topic: the view follows it and the other person's sidebar changes live", async () => {
    await othelloInVerona();
    await send(hamlet, VERONA, "move me", "First of the topic");
    await send(hamlet, VERONA, "move me", "Second of the topic");
    await send(hamlet, VERONA, "move me", "Third of the topic");
    await expect.poll(() => othelloTopic("move me").count()).toBe(1);

    await hamlet.goto(`${web.server.baseUrl}/${topicHash("1-Verona", "move.20me")}`);
    await hamlet.waitForSelector(".message .content:has-text('Third of the topic')");
    await hamlet.locator(".recipient-bar .move-topic").first().click();
    await hamlet.fill("input[aria-label='New topic']", "moved here");
    expect(await hamlet.locator("select[aria-label='Which messages']").inputValue()).toBe("change_all");
    if (shots) await hamlet.screenshot({ path: `${shots}/move-topic.png` });
    await hamlet.click(".topic-dialog button[type=submit]");
    await expect.poll(() => hamlet.locator(".view-title").textContent()).toBe("#Verona › moved here");
    await expect.poll(() => othelloTopic("moved here").count()).toBe(1);
    await expect.poll(() => othelloTopic("move me").count()).toBe(0);
    await hamlet.waitForSelector(".message .content:has-text('First of the topic')");
    // Hamlet started the topic, so follows it: the policy moved with the topic.
    expect(await followPolicy("moved here")).toBe(3);
  }, 60_000);

  it("resolves a topic (✔ in the other person's sidebar, live) and unresolves it again", async () => {
    await othelloInVerona();
    await send(hamlet, VERONA, "resolve me", "A question to settle");
    await hamlet.goto(`${web.server.baseUrl}/${topicHash("1-Verona", "resolve.20me")}`);
    await hamlet.waitForSelector(".message .content:has-text('A question to settle')");
    await expect.poll(() => othelloTopic("resolve me").count()).toBe(1);

    await hamlet.locator(".recipient-bar .resolve").first().click();
    await expect.poll(() => othelloTopic("✔ resolve me").count()).toBe(1);
    await expect.poll(() => othelloTopic("✔ resolve me").locator(".resolved-mark").count()).toBe(1);
    expect(await othelloTopic("✔ resolve me").getAttribute("class")).toContain("resolved");
    await expect.poll(() => hamlet.locator(".view-title").textContent()).toBe("#Verona › ✔ resolve me");
    await expect.poll(() => hamlet.locator(".recipient-bar .resolve.on").count()).toBeGreaterThan(0);
    await hamlet.locator(".recipient-bar .resolve").first().click();
    await expect.poll(() => othelloTopic("resolve me").count()).toBe(1);
    await expect.poll(() => othelloTopic("resolve me").locator(".resolved-mark").count()).toBe(0);
    await expect.poll(() => hamlet.locator(".view-title").textContent()).toBe("#Verona › resolve me");
  }, 60_000);

  it("moves one message to another channel (change_one): it leaves the other person's open view", async () => {
    const first = await send(hamlet, VERONA, "move one", "First of the pair");
    const second = await send(hamlet, VERONA, "move one", "Second of the pair");
    await hamlet.goto(`${web.server.baseUrl}/${topicHash("1-Verona", "move.20one")}`);
    await hamlet.waitForSelector(".message .content:has-text('Second of the pair')");
    await othello.goto(`${web.server.baseUrl}/${topicHash("1-Verona", "move.20one")}`);
    await othello.waitForSelector(".message .content:has-text('Second of the pair')");

    await row(hamlet, "Second of the pair").hover();
    await row(hamlet, "Second of the pair").locator("[data-action=more]").click();
    await row(hamlet, "Second of the pair").locator("button:has-text('Move message…')").click();
    expect(await hamlet.locator("select[aria-label='Which messages']").inputValue()).toBe("change_one");
    await hamlet.selectOption("select[aria-label='New channel']", String(DENMARK));
    await hamlet.fill("input[aria-label='New topic']", "from Verona");
    await hamlet.click(".topic-dialog button[type=submit]");
    await expect.poll(() => row(othello, "Second of the pair").count()).toBe(0);
    await expect.poll(() => row(othello, "First of the pair").count()).toBe(1);
    const moved = await call(hamlet, "GET", `/messages/${second}`);
    expect([moved.message.stream_id, moved.message.subject]).toEqual([DENMARK, "from Verona"]);
    const stayed = await call(hamlet, "GET", `/messages/${first}`);
    expect([stayed.message.stream_id, stayed.message.subject]).toEqual([VERONA, "move one"]);
  }, 60_000);

  it("follows a topic its starter started (Zulip's automatic follow), and unfollowing and following again show live", async () => {
    await send(hamlet, VERONA, "follow me", "A topic of my own");
    await hamlet.goto(`${web.server.baseUrl}/${topicHash("1-Verona", "follow.20me")}`);
    await hamlet.waitForSelector(".message .content:has-text('A topic of my own')");
    const hamletTopic = hamlet.locator(`.sidebar [data-channel-id='${VERONA}'] .topics li[data-topic='follow me']`);
    const policy = () => followPolicy("follow me");
    expect(await policy()).toBe(3);
    await expect.poll(() => hamletTopic.locator(".followed-mark").count()).toBe(1);
    expect(await hamlet.locator(".recipient-bar .follow").first().getAttribute("aria-pressed")).toBe("true");
    // Unfollowed, then followed again: marked when the event comes back.
    await hamlet.locator(".recipient-bar .follow").first().click();
    await expect.poll(() => hamletTopic.locator(".followed-mark").count()).toBe(0);
    expect(await policy()).toBe(0);
    expect(await hamlet.locator(".recipient-bar .follow").first().getAttribute("aria-pressed")).toBe("false");
    await hamlet.locator(".recipient-bar .follow").first().click();
    await expect.poll(() => hamletTopic.locator(".followed-mark").count()).toBe(1);
    expect(await policy()).toBe(3);
  }, 60_000);

  it("offers no topic moves when the organization allows none, changed live", async () => {
    const iago = await web.signIn("Iago");
    const set = (params: Record<string, string>) => call(iago, "PATCH", "/realm", params);
    const nobody = (await call(iago, "GET", "/user_groups")).user_groups.find((g: any) => g.name === "role:nobody").id;
    expect(
      (
        await set({
          can_move_messages_between_topics_group: JSON.stringify({ new: nobody }),
          can_move_messages_between_channels_group: JSON.stringify({ new: nobody }),
        })
      ).result,
    ).toBe("success");
    try {
      await hamlet.goto(`${web.server.baseUrl}/${topicHash("1-Verona", "moved.20here")}`);
      await hamlet.waitForSelector(".message .content:has-text('First of the topic')");
      // The realm event took the buttons away, without a reload.
      await expect.poll(() => hamlet.locator(".recipient-bar .move-topic").count()).toBe(0);
      await row(hamlet, "First of the topic").hover();
      await row(hamlet, "First of the topic").locator("[data-action=more]").click();
      await expect.poll(() => row(hamlet, "First of the topic").locator("button:has-text('Move message…')").count()).toBe(0);
    } finally {
      const members = (await call(iago, "GET", "/user_groups")).user_groups.find((g: any) => g.name === "role:members").id;
      const everyone = (await call(iago, "GET", "/user_groups")).user_groups.find((g: any) => g.name === "role:everyone").id;
      await set({
        can_move_messages_between_topics_group: JSON.stringify({ new: everyone }),
        can_move_messages_between_channels_group: JSON.stringify({ new: members }),
      });
      await iago.context().close();
    }
    await expect.poll(() => hamlet.locator(".recipient-bar .move-topic").count()).toBeGreaterThan(0);
  }, 40_000);

  it("leaves muted topics and channels out of the unread counts, unmuted and followed topics in, live", async () => {
    await othello.goto(`${web.server.baseUrl}/#inbox`);
    await othello.waitForSelector(".view-title:has-text('Inbox')");
    const verona = "[data-channel-id='1']";
    const denmark = "[data-channel-id='2']";
    const inbox = ".views li:has(a[href='#inbox'])";
    const titleCount = async () => Number(/^\((\d+)\) /.exec(await othello.title())?.[1] ?? 0);
    const counts = async (): Promise<[number, number, number, number]> => [
      await sidebarCount(othello, verona),
      await sidebarCount(othello, denmark),
      await sidebarCount(othello, inbox),
      await titleCount(),
    ];
    const setTopic = async (channelId: number, topic: string, policy: number) =>
      expect((await call(othello, "POST", "/user_topics", { stream_id: String(channelId), topic, visibility_policy: String(policy) })).result).toBe("success");
    const [v, d, total, title] = await counts();

    // A muted topic: its message counts nowhere; the next one, in another topic, counts once.
    await setTopic(VERONA, "quiet please", 1);
    await send(hamlet, VERONA, "quiet please", "Not counted while muted");
    await send(hamlet, VERONA, "loud and clear", "Counted");
    await expect.poll(counts).toEqual([v + 1, d, total + 1, title + 1]);
    // Unmuted again (live, by the user_topic event), it counts.
    await setTopic(VERONA, "quiet please", 0);
    await expect.poll(counts).toEqual([v + 2, d, total + 2, title + 2]);

    // A muted channel: only its followed (or unmuted) topics count, in its entry and the totals.
    const muteDenmark = (muted: boolean) =>
      call(othello, "POST", "/users/me/subscriptions/properties", {
        subscription_data: JSON.stringify([{ stream_id: DENMARK, property: "is_muted", value: muted }]),
      });
    expect((await muteDenmark(true)).result).toBe("success");
    await setTopic(DENMARK, "watched", 3);
    await send(hamlet, DENMARK, "elsewhere", "Not counted: the channel is muted");
    await send(hamlet, DENMARK, "watched", "Counted: a followed topic");
    // Denmark's earlier unread messages (d) no longer count.
    await expect.poll(counts).toEqual([v + 2, 1, total + 3 - d, title + 3 - d]);
    if (shots) await othello.screenshot({ path: `${shots}/muted-counts.png` });

    // In the open channel's topic list a muted topic is dimmed, without its count.
    await setTopic(VERONA, "quiet please", 1);
    await othello.goto(`${web.server.baseUrl}/#narrow/channel/1-Verona`);
    await othello.waitForSelector(`${verona} .topics li.muted[data-topic='quiet please']`);
    expect(await othello.locator(`${verona} .topics li[data-topic='quiet please'] .count`).isVisible()).toBe(false);
    expect((await muteDenmark(false)).result).toBe("success");
    await setTopic(VERONA, "quiet please", 0);
    await setTopic(DENMARK, "watched", 0);
  }, 40_000);

  it("hides a muted user from the people list and the direct messages list, live, until unmuted", async () => {
    const IAGO_ID = 11;
    await othello.goto(`${web.server.baseUrl}/#inbox`);
    await othello.waitForSelector(".view-title:has-text('Inbox')");
    await call(othello, "POST", "/messages", { type: "direct", to: JSON.stringify([IAGO_ID]), content: "A word for Iago" });
    const person = othello.locator(`.user-list li[data-user-id='${IAGO_ID}']`);
    const dm = othello.locator(`.dms a[data-dm='${IAGO_ID}']`);
    await expect.poll(() => Promise.all([person.count(), dm.count()])).toEqual([1, 1]);
    expect((await call(othello, "POST", `/users/me/muted_users/${IAGO_ID}`)).result).toBe("success");
    await expect.poll(() => Promise.all([person.count(), dm.count()])).toEqual([0, 0]);
    if (shots) await othello.screenshot({ path: `${shots}/muted-user-hidden.png` });
    expect((await call(othello, "DELETE", `/users/me/muted_users/${IAGO_ID}`)).result).toBe("success");
    await expect.poll(() => Promise.all([person.count(), dm.count()])).toEqual([1, 1]);
    if (shots) await othello.screenshot({ path: `${shots}/muted-user-unmuted.png` });
  }, 20_000);

  it("keeps a message that failed to send across a reload, until it is retried and sent", async () => {
    await hamlet.goto(`${web.server.baseUrl}/${topicHash("1-Verona", "outbox")}`);
    await othello.goto(`${web.server.baseUrl}/${topicHash("1-Verona", "outbox")}`);
    await hamlet.waitForSelector(".message-list .status");
    // The network refuses the send.
    await hamlet.route("**/json/messages", (route) => (route.request().method() === "POST" ? route.abort() : route.continue()));
    await openCompose(hamlet);
    await hamlet.fill(".compose textarea", "Survives a reload");
    await hamlet.press(".compose textarea", "Control+Enter");
    await hamlet.waitForSelector(".message.failed .content:has-text('Survives a reload')");
    await hamlet.waitForSelector(".unsent li:has-text('Survives a reload')");
    await hamlet.unroute("**/json/messages");

    await hamlet.reload();
    await hamlet.waitForSelector(".unsent li:has-text('Survives a reload')");
    // In its conversation too, marked as not sent.
    await hamlet.waitForSelector(".message.failed .content:has-text('Survives a reload')");
    if (shots) await hamlet.screenshot({ path: `${shots}/unsent.png` });
    // Elsewhere (the inbox) the notice stays.
    await hamlet.goto(`${web.server.baseUrl}/#inbox`);
    await hamlet.waitForSelector(".unsent li:has-text('Survives a reload')");
    await hamlet.click(".unsent li button:has-text('Retry')");
    await othello.waitForSelector(".message .content:has-text('Survives a reload')");
    await expect.poll(() => hamlet.locator(".unsent").count()).toBe(0);
    await expect.poll(() => hamlet.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("parley-outbox")).length)).toBe(0);

    // Sent once: after another reload nothing is pending and the message is there once.
    await hamlet.goto(`${web.server.baseUrl}/${topicHash("1-Verona", "outbox")}`);
    await hamlet.reload();
    await hamlet.waitForSelector(".message .content:has-text('Survives a reload')");
    await expect.poll(() => hamlet.locator(".unsent").count()).toBe(0);
    await expect.poll(() => row(hamlet, "Survives a reload").count()).toBe(1);
    await expect.poll(() => hamlet.locator(".message.local").count()).toBe(0);

    // Discarded: gone, and not back after a reload.
    await hamlet.route("**/json/messages", (route) => (route.request().method() === "POST" ? route.abort() : route.continue()));
    await openCompose(hamlet);
    await hamlet.fill(".compose textarea", "Never mind");
    await hamlet.press(".compose textarea", "Control+Enter");
    await hamlet.waitForSelector(".unsent li:has-text('Never mind')");
    await hamlet.unroute("**/json/messages");
    await hamlet.click(".unsent li button:has-text('Discard')");
    await hamlet.reload();
    await hamlet.waitForSelector(".message .content:has-text('Survives a reload')");
    await expect.poll(() => hamlet.locator(".unsent").count()).toBe(0);
    await expect.poll(() => row(hamlet, "Never mind").count()).toBe(0);
  }, 40_000);
});
