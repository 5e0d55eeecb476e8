import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendChannelMessage } from "../support/factories.js";
import { expectSuccess, useTestServer } from "../support/testApp.js";
import { at } from "../support/at.js";

/**
 * Previews Zulip's apps render: audio players, YouTube thumbnails, and website previews made by a
 * durable job (Open Graph, oEmbed videos) and sent as rendering-only update_message events.
 * External media go through the camo-compatible proxy at /external_content/.
 */
const t = useTestServer({ eventHeartbeatSeconds: 1, outgoing: { webhookTimeoutSeconds: 2, allowHosts: ["127.0.0.1"] } });

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
let site = "";
let server: http.Server;
const hits: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(req.url ?? "");
    const page = (head: string) => {
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><html><head>${head}</head><body><meta property="og:title" content="not in the head"><p>Body</p></body></html>`);
    };
    switch (req.url) {
      case "/article":
        return page(
          `<title>Plain title</title><meta property="og:title" content="Parley &amp; friends"><meta property="og:description" content="All about it"><meta property="og:image" content="/cover.png">`,
        );
      case "/no-image":
        return page(`<title>Only a title</title><meta name="description" content="Nothing to show">`);
      case "/video":
        return page(`<title>Cats</title><link rel="alternate" type="application/json+oembed" href="/oembed.json">`);
      case "/oembed.json":
        res.writeHead(200, { "Content-Type": "application/json" });
        return res.end(
          JSON.stringify({
            type: "video",
            title: "Cats playing",
            thumbnail_url: `${site}/thumb.png`,
            html: '<iframe src="https://player.example/1"></iframe>',
          }),
        );
      case "/cover.png":
      case "/thumb.png":
        res.writeHead(200, { "Content-Type": "image/png" });
        return res.end(PNG);
      case "/notes.txt":
        res.writeHead(200, { "Content-Type": "text/plain" });
        return res.end("hello");
      default:
        res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function send(content: string, who = "hamlet"): Promise<number> {
  return await sendChannelMessage(t, who, "Denmark", "previews", content);
}
async function renderedOf(id: number): Promise<string> {
  return expectSuccess(await t.get("hamlet", `/api/v1/messages/${id}`)).message.content;
}
const proxyPathOf = (html: string) => /(\/external_content\/[0-9a-f]{40}\/[0-9a-f]+)/.exec(html)?.[1];

describe("media in messages", () => {
  it("turns ![title](audio file) into an audio player, and shows YouTube links with their thumbnail through the proxy", async () => {
    const audio = await renderedOf(await send("![Voice memo](https://example.com/memo.mp3)"));
    expect(audio).toMatch(/^<p><audio controls preload="metadata" src="\/external_content\/[0-9a-f]{40}\/[0-9a-f]+" title="Voice memo"><\/audio><\/p>$/);
    const upload = await renderedOf(await send("![memo](/user_uploads/2/ab/xyz/memo.ogg) and [file.mp3](https://example.com/file.mp3)"));
    expect(upload).toBe(
      '<p><audio controls preload="metadata" src="/user_uploads/2/ab/xyz/memo.ogg" title="memo"></audio> and <a href="https://example.com/file.mp3">file.mp3</a></p>',
    );
    const youtube = await renderedOf(await send("https://youtu.be/dQw4w9WgXcQ"));
    expect(youtube).toMatch(
      /<div class="youtube-video message_inline_image"><a data-id="dQw4w9WgXcQ" href="https:\/\/youtu.be\/dQw4w9WgXcQ"><img src="\/external_content\/[0-9a-f]{40}\/[0-9a-f]+"><\/a><\/div>$/,
    );
    expect(Buffer.from(at(proxyPathOf(youtube)!.split("/"), 3), "hex").toString()).toBe("https://i.ytimg.com/vi/dQw4w9WgXcQ/default.jpg");
  });

  it("proxies signed image URLs only, and only images", async () => {
    const html = await renderedOf(await send(`${site}/cover.png`));
    const path = proxyPathOf(html)!;
    const ok = await fetch(t.baseUrl + path);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toBe("image/png");
    expect(ok.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Buffer.from(await ok.arrayBuffer())).toEqual(PNG);
    const [, , digest, hex] = path.split("/");
    const forged = Buffer.from(`${site}/notes.txt`).toString("hex");
    expect((await fetch(`${t.baseUrl}/external_content/${digest}/${forged}`)).status).toBe(404);
    expect((await fetch(`${t.baseUrl}/external_content/${"0".repeat(40)}/${hex}`)).status).toBe(404);
    const text = proxyPathOf(await renderedOf(await send(`![x](${site}/notes.txt)`)));
    expect(text).toBeUndefined(); // not an image link: no preview, nothing proxied
  });
});

describe("website previews", () => {
  it("are not fetched while the organization has inline_url_embed_preview off (Zulip's default)", async () => {
    hits.length = 0;
    const id = await send(`${site}/article`);
    await t.drainJobs();
    expect(hits).toEqual([]);
    expect(await renderedOf(id)).not.toContain("message_embed");
  });

  it("are fetched by a job and sent as a rendering-only update_message event", async () => {
    expectSuccess(await t.patch("iago", "/api/v1/realm", { inline_url_embed_preview: "true" }));
    const reg = expectSuccess(await t.post("othello", "/api/v1/register", { event_types: JSON.stringify(["update_message"]) }));
    const id = await send(`Read ${site}/article`);
    await t.drainJobs();
    const { events } = expectSuccess(await t.get("othello", "/api/v1/events", { queue_id: reg.queue_id, last_event_id: "-1", dont_block: "true" }));
    const update = events.find((e: any) => e.message_id === id);
    expect(update).toMatchObject({ type: "update_message", user_id: null, rendering_only: true, message_ids: [id], content: `Read ${site}/article` });
    expect(update.rendered_content).toContain(
      `<div class="message_embed"><a class="message_embed_image" href="${site}/article" style="background-image: url(&quot;/external_content/`,
    );
    expect(update.rendered_content).toContain(
      `<div class="data-container"><div class="message_embed_title"><a href="${site}/article" title="Parley &amp; friends">Parley &amp; friends</a></div><div class="message_embed_description">All about it</div></div></div>`,
    );
    expect(await renderedOf(id)).toBe(update.rendered_content);
    // The preview image comes through the proxy.
    const image = await fetch(t.baseUrl + proxyPathOf(update.rendered_content)!);
    expect(Buffer.from(await image.arrayBuffer())).toEqual(PNG);
  });

  it("show oEmbed videos as video previews with the title as the link text, and nothing for pages without an image", async () => {
    const video = await send(`${site}/video`);
    const bare = await send(`${site}/no-image`);
    const before = await renderedOf(bare);
    await t.drainJobs();
    const html = await renderedOf(video);
    expect(html).toContain(
      `<div class="embed-video message_inline_image"><a href="${site}/video" title="Cats playing" data-id="&lt;iframe src=&quot;https://player.example/1&quot;&gt;&lt;/iframe&gt;"><img src="/external_content/`,
    );
    expect(await renderedOf(bare)).toBe(before);
  });

  it("are not made for links in quotes", async () => {
    hits.length = 0;
    await send(`> ${site}/article?quoted`);
    await t.drainJobs();
    expect(hits).toEqual([]);
  });
});
