import { beforeAll, describe, expect, it } from "vitest";
import { encodeHashComponent } from "../../src/contract/hash.js";
import { ARCHIVE_EMPTY_TOPIC, ARCHIVE_PAGE_SIZE, ARCHIVE_TOPICS_PAGE_SIZE } from "../../src/http/archivePages.js";
import { seedChannels } from "../support/seed.js";
import { makeChannel, sendChannelMessage, sendDirectMessage } from "../support/factories.js";
import { expectSuccess, type TestServer, useTestServer } from "../support/testApp.js";

/**
 * The web-public archive (src/http/archivePages.ts): server-rendered pages of the channels visitors
 * may read, and robots.txt. Private channels, public channels that are not web-public and direct
 * messages never appear; their URLs are the same 404 as a missing channel's. Topic names are
 * escaped; long topics are paged; every page names its canonical URL.
 */
const t = useTestServer();
const limited = useTestServer({
  rateLimits: {
    enabled: true,
    user: { max: 10_000, windowSeconds: 60 },
    ip: { max: 3, windowSeconds: 60 },
    login: { max: 3, windowSeconds: 1800 },
    email: { max: 5, windowSeconds: 3600 },
  },
});

interface Page {
  status: number;
  html: string;
  type: string;
  csp: string;
  location: string | null;
}
async function page(path: string, server: TestServer = t, headers: Record<string, string> = {}): Promise<Page> {
  const res = await fetch(`${server.baseUrl}${path}`, { redirect: "manual", headers: { Accept: "text/html", ...headers } });
  return {
    status: res.status,
    html: await res.text(),
    type: res.headers.get("content-type") ?? "",
    csp: res.headers.get("content-security-policy") ?? "",
    location: res.headers.get("location"),
  };
}
const setSpectatorAccess = async (on: boolean, server: TestServer = t) =>
  expectSuccess(await server.patch("desdemona", "/api/v1/realm", { enable_spectator_access: on }));
const linksIn = (html: string, cls: string) => [...html.matchAll(new RegExp(`<li class="${cls}"><a href="([^"]+)"`, "g"))].map((m) => m[1]);

let square: number;
let hidden: number;
const SECRET = "hushhushsecret";
const XSS_TOPIC = `<script>alert("x")</script> & co`;

beforeAll(async () => {
  await setSpectatorAccess(true);
  square = await makeChannel(t, {
    name: "town square",
    by: "desdemona",
    description: "Where **everyone** meets",
    subscribers: ["desdemona", "hamlet"],
    extra: { is_web_public: true },
  });
  hidden = await makeChannel(t, { name: `back office ${SECRET}`, by: "iago", invite_only: true, subscribers: ["iago", "hamlet"] });
  await sendChannelMessage(t, "hamlet", square, "news", "Hello **world**, open to everyone");
  await sendChannelMessage(t, "iago", square, "NEWS", "a reply in another case");
  await sendChannelMessage(t, "hamlet", square, XSS_TOPIC, "an awkward topic");
  await sendChannelMessage(t, "hamlet", square, "a/b. (c)", "slash and dot");
  await sendChannelMessage(t, "hamlet", "Verona", `members ${SECRET}`, `members only ${SECRET}`);
  await sendChannelMessage(t, "hamlet", hidden, `plans ${SECRET}`, `subscribers only ${SECRET}`);
  await sendDirectMessage(t, "hamlet", ["iago"], `just us ${SECRET}`);
});

describe("the archive index", () => {
  it("lists the web-public channels only, with their descriptions, a canonical link and the pages' CSP", async () => {
    const res = await page("/archive/");
    expect(res.status).toBe(200);
    expect(res.type).toBe("text/html; charset=utf-8");
    expect(res.csp).toContain("script-src 'self'");
    expect(res.html).not.toContain("<script");
    expect(linksIn(res.html, "archive-channel")).toEqual([`/archive/channel/${seedChannels.rome.id}-Rome/`, `/archive/channel/${square}-town-square/`]);
    expect(res.html).toContain("<strong>everyone</strong>");
    expect(res.html).toContain(`<link rel="canonical" href="${t.ctx.config.externalUrl}/archive/">`);
    expect(res.html).toMatch(/<meta name="description" content="The public channels of [^"]*: #Rome, #town square">/);
    expect(res.html).not.toContain("Verona");
    expect(res.html).not.toContain(SECRET);
  });
});

describe("a channel's page", () => {
  it("lists its topics newest first, case variants as one topic named as the newest message has it", async () => {
    const res = await page(`/archive/channel/${square}-town-square/`);
    expect(res.status).toBe(200);
    const topics = linksIn(res.html, "archive-topic");
    expect(topics).toEqual([
      `/archive/channel/${square}-town-square/topic/a.2Fb.2E.20.28c.29/`,
      `/archive/channel/${square}-town-square/topic/.3Cscript.3Ealert.28.22x.22.29.3C.2Fscript.3E.20.26.20co/`,
      `/archive/channel/${square}-town-square/topic/NEWS/`,
      // The Notification Bot's notice of the new channel.
      `/archive/channel/${square}-town-square/topic/channel.20events/`,
    ]);
    expect(res.html).toContain('>NEWS</a><span class="topic-meta">2 messages · <time datetime=');
    expect(res.html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co");
    expect(res.html).toContain(`<link rel="canonical" href="${t.ctx.config.externalUrl}/archive/channel/${square}-town-square/">`);
    expect(res.html).toContain(`<a href="/#narrow/channel/${square}-town-square">Open in the app</a>`);
  });

  it("pages a channel with many topics, the most recently active first", async () => {
    const busy = await makeChannel(t, { name: "busy", by: "desdemona", subscribers: ["hamlet"], extra: { is_web_public: true } });
    // With the Notification Bot's "channel events", one topic more than a page.
    for (let i = 1; i <= ARCHIVE_TOPICS_PAGE_SIZE; i++) await sendChannelMessage(t, "hamlet", busy, `topic ${i}`, "x");
    await sendChannelMessage(t, "hamlet", busy, "topic 1", "bumped to the top");
    const base = `/archive/channel/${busy}-busy/`;
    const first = await page(base);
    const topics = linksIn(first.html, "archive-topic");
    expect(topics.length).toBe(ARCHIVE_TOPICS_PAGE_SIZE);
    expect(topics[0]).toBe(`${base}topic/topic.201/`);
    expect(topics[1]).toBe(`${base}topic/topic.20${ARCHIVE_TOPICS_PAGE_SIZE}/`);
    expect(first.html).toContain(`<a rel="next" href="${base}?page=2">Older →</a>`);
    const second = await page(`${base}?page=2`);
    expect(linksIn(second.html, "archive-topic")).toEqual([`${base}topic/channel.20events/`]);
    expect(second.html).toContain(`<a rel="prev" href="${base}">← More recent</a>`);
    expect((await page(`${base}?page=3`)).status).toBe(404);
  });

  it("redirects another spelling of the channel to its canonical URL", async () => {
    for (const wrong of [`${square}`, `${square}-old-name`]) {
      const res = await page(`/archive/channel/${wrong}/`);
      expect(res.status).toBe(301);
      expect(res.location).toBe(`/archive/channel/${square}-town-square/`);
    }
  });
});

describe("a topic's page", () => {
  it("shows the messages' rendered HTML, senders and times, oldest first, with title, description, canonical and app links", async () => {
    const res = await page(`/archive/channel/${square}-town-square/topic/NEWS/`);
    expect(res.status).toBe(200);
    expect(res.html).toContain("<title>NEWS | #town square | ");
    expect(res.html).toContain('<meta name="description" content="Hello world, open to everyone">');
    expect(res.html).toContain(`<link rel="canonical" href="${t.ctx.config.externalUrl}/archive/channel/${square}-town-square/topic/NEWS/">`);
    expect(res.html).toContain(`<a class="open-in-app" href="/#narrow/channel/${square}-town-square/topic/NEWS">Open in the app</a>`);
    expect(res.html).toContain("<h1>NEWS</h1>");
    const senders = [...res.html.matchAll(/<span class="sender-name">([^<]*)<\/span>/g)].map((m) => m[1]);
    expect(senders).toEqual(["King Hamlet", "Iago"]);
    expect(res.html).toContain('<div class="rendered_markdown message-content"><p>Hello <strong>world</strong>, open to everyone</p></div>');
    expect(res.html).toMatch(
      /<a class="message-time" href="#message-\d+"><time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time><\/a>/,
    );
    expect(res.html).not.toContain('class="pagination"');
    expect(res.html).not.toContain(SECRET);
  });

  it("redirects another case of the topic, and keeps the page number", async () => {
    const res = await page(`/archive/channel/${square}-town-square/topic/news/`);
    expect(res.status).toBe(301);
    expect(res.location).toBe(`/archive/channel/${square}-town-square/topic/NEWS/`);
    // A percent-encoded spelling decodes to the same topic.
    const encoded = await page(`/archive/channel/${square}/topic/a%2Fb.2E.20.28c.29/`);
    expect(encoded.status).toBe(301);
    expect(encoded.location).toBe(`/archive/channel/${square}-town-square/topic/a.2Fb.2E.20.28c.29/`);
  });

  it("serves a long non-ASCII topic, whose encoded segment is hundreds of characters", async () => {
    const topic = "日本語のトピック名はとても長くなることがあります";
    await sendChannelMessage(t, "hamlet", square, topic, "long name");
    const segment = encodeHashComponent(topic);
    expect(segment.length).toBeGreaterThan(200);
    const res = await page(`/archive/channel/${square}-town-square/topic/${segment}/`);
    expect(res.status).toBe(200);
    expect(res.html).toContain(`<h1>${topic}</h1>`);
  });

  it("escapes a topic name with <script> everywhere it appears", async () => {
    const res = await page(`/archive/channel/${square}-town-square/topic/.3Cscript.3Ealert.28.22x.22.29.3C.2Fscript.3E.20.26.20co/`);
    expect(res.status).toBe(200);
    expect(res.html).not.toContain("<script");
    expect(res.html).toContain("<h1>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co</h1>");
    expect(res.html).toContain("<title>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co | #town square | ");
  });

  it("pages a long topic 100 messages at a time, with next and previous links", async () => {
    const count = ARCHIVE_PAGE_SIZE + 1;
    for (let i = 1; i <= count; i++) await sendChannelMessage(t, i % 2 ? "hamlet" : "iago", square, "long", `message number ${i}`);
    const base = `/archive/channel/${square}-town-square/topic/long/`;
    const first = await page(base);
    expect(first.status).toBe(200);
    expect((first.html.match(/<li class="archive-message"/g) ?? []).length).toBe(ARCHIVE_PAGE_SIZE);
    expect(first.html).toContain("<p>message number 1</p>");
    expect(first.html).toContain(`<p>message number ${ARCHIVE_PAGE_SIZE}</p>`);
    expect(first.html).not.toContain(`<p>message number ${count}</p>`);
    expect(first.html).toContain(`<a rel="next" href="${base}?page=2">Later →</a>`);
    expect(first.html).not.toContain('rel="prev"');
    expect(first.html).toContain(`<link rel="next" href="${t.ctx.config.externalUrl}${base}?page=2">`);
    expect(first.html).toContain("Page 1 of 2");

    const second = await page(`${base}?page=2`);
    expect(second.status).toBe(200);
    expect((second.html.match(/<li class="archive-message"/g) ?? []).length).toBe(1);
    expect(second.html).toContain(`<p>message number ${count}</p>`);
    expect(second.html).toContain(`<a rel="prev" href="${base}">← Earlier</a>`);
    expect(second.html).toContain(`<link rel="canonical" href="${t.ctx.config.externalUrl}${base}?page=2">`);
    expect(second.html).toContain("<title>long (page 2) | #town square | ");

    for (const bad of ["?page=3", "?page=0", "?page=x", "?page=-1"]) expect((await page(base + bad)).status, bad).toBe(404);
    // The case-redirect keeps the page.
    expect((await page(`/archive/channel/${square}-town-square/topic/LONG/?page=2`)).location).toBe(`${base}?page=2`);
  });

  it("shows the empty topic as general chat at its reserved segment", async () => {
    expectSuccess(await t.patch("desdemona", "/api/v1/realm", { topics_policy: "allow_empty_topic" }));
    await sendChannelMessage(t, "hamlet", square, "", "no topic here");
    const channel = await page(`/archive/channel/${square}-town-square/`);
    expect(channel.html).toContain(`<a href="/archive/channel/${square}-town-square/topic/${ARCHIVE_EMPTY_TOPIC}/" class="empty-topic">general chat</a>`);
    const res = await page(`/archive/channel/${square}-town-square/topic/${ARCHIVE_EMPTY_TOPIC}/`);
    expect(res.status).toBe(200);
    expect(res.html).toContain('<h1 class="empty-topic">general chat</h1>');
    expect(res.html).toContain("<p>no topic here</p>");
  });
});

describe("what visitors may not read", () => {
  const expectNotFound = (res: Page) => {
    expect(res.status).toBe(404);
    expect(res.html).toContain("<h1>Not found</h1>");
    expect(res.html).toContain('<meta name="robots" content="noindex">');
    expect(res.html).not.toContain(SECRET);
  };

  it("answers a private channel, a public one that is not web-public and a missing one with the same 404", async () => {
    const verona = seedChannels.verona.id;
    const pages = [
      `/archive/channel/${hidden}/`,
      `/archive/channel/${hidden}-back-office/`,
      `/archive/channel/${hidden}-back-office/topic/plans.20${SECRET}/`,
      `/archive/channel/${verona}-Verona/`,
      `/archive/channel/${verona}-Verona/topic/members.20${SECRET}/`,
      `/archive/channel/999999-nothing/`,
      `/archive/channel/999999-nothing/topic/x/`,
      `/archive/channel/x/`,
      `/archive/channel/99999999999-too-big/`,
      `/archive/channel/${square}-town-square/topic/${"x".repeat(300)}/`,
      `/archive/channel/${square}-town-square/topic/no.20such.20topic/`,
      `/archive/channel/${square}-town-square/topic/bad.zz/`,
    ];
    const answers = await Promise.all(pages.map((p) => page(p)));
    answers.forEach((res, i) => expect(res.status, `${pages[i]} ${res.html}`.slice(-300)).toBe(404));
    for (const res of answers) expectNotFound(res);
    // Identical bodies: a 404 tells nothing about what exists.
    expect(new Set(answers.map((a) => a.html)).size).toBe(1);
    // Malformed percent-encoding and an overlong path are refused before any lookup.
    for (const bad of [`/archive/channel/${square}-town-square/topic/%zz/`, "/archive/channel/%E0/", `/archive/channel/${square}/topic/${"x".repeat(5000)}/`]) {
      const res = await page(bad);
      expect(res.status, bad).toBeGreaterThanOrEqual(400);
      expect(res.status, bad).toBeLessThan(500);
    }
  });

  it("never shows direct messages or private topics, signed in or not", async () => {
    const auth = { Authorization: await t.authHeader("hamlet") };
    const all = await Promise.all(
      ["/archive/", `/archive/channel/${square}-town-square/`, `/archive/channel/${seedChannels.rome.id}-Rome/`].map((p) => page(p, t, auth)),
    );
    for (const res of all) {
      expect(res.status).toBe(200);
      expect(res.html).not.toContain(SECRET);
      expect(res.html).not.toContain("just us");
    }
    // Credentials do not widen: a subscriber of the private channel still gets the 404.
    expectNotFound(await page(`/archive/channel/${hidden}-back-office/`, t, auth));
  });
});

describe("robots.txt and spectator access off", () => {
  it("allows the archive and disallows everything else while visitors are let in", async () => {
    const res = await fetch(`${t.baseUrl}/robots.txt`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await res.text()).toBe("User-agent: *\nAllow: /archive/\nAllow: /static/pages.css\nAllow: /static/archive.css\nDisallow: /\n");
    const css = await fetch(`${t.baseUrl}/static/archive.css`);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
  });

  it("turns everything off with spectator access: 404 pages and robots.txt disallowing all", async () => {
    await setSpectatorAccess(false);
    try {
      for (const path of ["/archive/", `/archive/channel/${square}-town-square/`, `/archive/channel/${square}-town-square/topic/NEWS/`]) {
        const res = await page(path);
        expect(res.status, path).toBe(404);
        expect(res.html).not.toContain("town square");
      }
      expect(await (await fetch(`${t.baseUrl}/robots.txt`)).text()).toBe("User-agent: *\nDisallow: /\n");
    } finally {
      await setSpectatorAccess(true);
    }
  });
});

describe("rate limits", () => {
  it("limits the pages per address, as unauthenticated API requests", async () => {
    await setSpectatorAccess(true, limited);
    const from = { "X-Forwarded-For": "10.9.8.7" };
    for (let i = 0; i < 3; i++) expect((await page("/archive/", limited, from)).status).toBe(200);
    const over = await fetch(`${limited.baseUrl}/archive/channel/${seedChannels.rome.id}-Rome/`, { headers: from });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    // The same budget as the visitor API's.
    expect((await limited.get(null, "/api/v1/messages", { anchor: "newest", num_before: 1, num_after: 0 }, { headers: from })).status).toBe(429);
    // Another address is not affected.
    expect((await page("/archive/", limited, { "X-Forwarded-For": "10.9.8.6" })).status).toBe(200);
  });
});
