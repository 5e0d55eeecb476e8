import { describe, expect, it } from "vitest";
import { collectReferences, renderMarkdown } from "../../src/lib/markdown/index.js";
import { testRealmRefs as refs } from "./testRealm.js";

const REALM_URL = "https://chat.example.com";
const render = (content: string) => renderMarkdown(content, refs, { realmUrl: REALM_URL });

describe("collectReferences", () => {
  it("finds mention names and ids, groups, channels and emoji names", () => {
    const found = collectReferences(
      "@**King Hamlet** @_**Zoe|7** @**all** @*hamletcharacters* @_*support* #**Verona** #**Denmark>lunch@12** :smile: :green_tick:",
    );
    expect(found.userNames).toEqual(["King Hamlet"]);
    expect(found.userIds).toEqual([7]);
    expect(found.groupNames).toEqual(["hamletcharacters", "support"]);
    expect(found.streamNames).toEqual(["Verona", "Denmark"]);
    expect(found.emojiNames).toEqual(["smile", "green_tick"]);
  });
});

describe("renderMarkdown result fields", () => {
  it("renders user mentions and records who is mentioned", () => {
    const result = render("hi @**King Hamlet** and @**Othello, the Moor of Venice|12**, silently @_**Iago**");
    expect(result.html).toBe(
      '<p>hi <span class="user-mention" data-user-id="10">@King Hamlet</span> and <span class="user-mention" data-user-id="12">@Othello, the Moor of Venice</span>, silently <span class="user-mention silent" data-user-id="11">Iago</span></p>',
    );
    expect([...result.mentionedUserIds].sort()).toEqual([10, 12]);
    expect(result.wildcard).toBeNull();
  });

  it("leaves unknown names and mismatched name|id pairs unlinked (the stars are then bold, as Zulip)", () => {
    const result = render("@**Nobody** @**Iago|10**");
    expect(result.html).toBe("<p>@<strong>Nobody</strong> @<strong>Iago|10</strong></p>");
    expect(result.mentionedUserIds.size).toBe(0);
  });

  it("detects channel and topic wildcards; silent wildcards notify nobody", () => {
    expect(render("@**all** hi").wildcard).toBe("stream");
    expect(render("@**channel** hi").html).toBe('<p><span class="user-mention channel-wildcard-mention" data-user-id="*">@channel</span> hi</p>');
    expect(render("@**topic** hi").html).toBe('<p><span class="topic-mention">@topic</span> hi</p>');
    expect(render("@**topic** hi").wildcard).toBe("topic");
    expect(render("@_**everyone** hi").wildcard).toBeNull();
  });

  it("renders group mentions", () => {
    const result = render("ping @*hamletcharacters*");
    expect(result.html).toBe('<p>ping <span class="user-group-mention" data-user-group-id="20">@hamletcharacters</span></p>');
    expect([...result.mentionedGroupIds]).toEqual([20]);
  });

  it("makes mentions inside quotes silent", () => {
    const result = render("> @**King Hamlet** said @*hamletcharacters*");
    expect(result.html).toContain('<span class="user-mention silent" data-user-id="10">King Hamlet</span>');
    expect(result.mentionedUserIds.size).toBe(0);
    expect(result.mentionedGroupIds.size).toBe(0);
  });

  it("renders channel, topic and message links with Zulip's URL encoding", () => {
    expect(render("#**Verona**").html).toBe('<p><a class="stream" data-stream-id="1" href="/#narrow/channel/1-Verona">#Verona</a></p>');
    expect(render("#**verona>lunch (today).**").html).toBe(
      '<p><a class="stream-topic" data-stream-id="1" href="/#narrow/channel/1-Verona/topic/lunch.20.28today.29.2E">#Verona &gt; lunch (today).</a></p>',
    );
    expect(render("#**Denmark>party@103**").html).toBe(
      '<p><a class="message-link" href="/#narrow/channel/2-Denmark/topic/party/near/103">#Denmark &gt; party @ 💬</a></p>',
    );
    expect(render("#**Nowhere**").html).toBe("<p>#<strong>Nowhere</strong></p>");
    expect(render("#**Verona**").hasLink).toBe(true);
  });

  it("renders realm emoji as images and skips deactivated ones", () => {
    expect(render(":green_tick:").html).toBe('<p><img alt=":green_tick:" class="emoji" src="/user_avatars/2/emoji/images/1.png" title="green tick"></p>');
    const deactivated = { ...refs, realmEmoji: new Map([["green_tick", { ...refs.realmEmoji.get("green_tick")!, deactivated: true }]]) };
    expect(renderMarkdown(":green_tick:", deactivated).html).toBe("<p>:green_tick:</p>");
  });

  it("reports links, images and uploaded files", () => {
    const plain = render("no links here");
    expect(plain.hasLink || plain.hasImage || plain.hasAttachment).toBe(false);

    expect(render("see https://example.com").hasLink).toBe(true);

    const upload = render("[report.pdf](/user_uploads/2/ab/Xy/report.pdf)");
    expect(upload.hasAttachment).toBe(true);
    expect(upload.hasImage).toBe(false);
    expect(upload.linkedUploadPaths).toEqual(["2/ab/Xy/report.pdf"]);

    const image = render(`[cat.png](${REALM_URL}/user_uploads/2/cd/Zw/cat.png)`);
    expect(image.hasImage).toBe(true);
    expect(image.linkedUploadPaths).toEqual(["2/cd/Zw/cat.png"]);
    expect(image.html).toBe(
      '<p><a href="user_uploads/2/cd/Zw/cat.png">cat.png</a></p>\n<div class="message_inline_image"><a href="user_uploads/2/cd/Zw/cat.png" title="cat.png"><img src="user_uploads/2/cd/Zw/cat.png"></a></div>',
    );
    expect(render("https://other.example.org/user_uploads/2/cd/Zw/cat.png").linkedUploadPaths).toEqual([]);
  });

  it("does not preview images inside quotes", () => {
    const result = render("> https://example.com/cat.png");
    expect(result.hasImage).toBe(false);
    expect(result.html).not.toContain("message_inline_image");
  });

  it("flags /me messages and keeps their content", () => {
    const me = render("/me is away");
    expect(me.isMeMessage).toBe(true);
    expect(me.html).toBe("<p>/me is away</p>");
    expect(render("/me is away\nfor lunch").isMeMessage).toBe(false);
    expect(render("/meeting").isMeMessage).toBe(false);
  });

  it("renders global times", () => {
    expect(render("<time:2024-01-01T10:00:00+02:00>").html).toBe('<p><time datetime="2024-01-01T08:00:00Z">2024-01-01T10:00:00+02:00</time></p>');
  });

  it("translates emoticons only when asked", () => {
    expect(renderMarkdown(":)", refs, { translateEmoticons: true }).html).toContain('class="emoji emoji-1f642"');
    expect(render(":)").html).toBe("<p>:)</p>");
  });
});
