import { describe, expect, it } from "vitest";
import { expectSuccess } from "../support/testApp.js";
import { itRejects } from "./ciSupport.js";
import { fixture, itPosts, useWebhookHarness, type WebhookHarness } from "./support.js";

const LOG = "https://ci.example.com/viewLog.html?buildTypeId=Backend_UnitTests&buildId=4711";
const LINKS = `See [changes](${LOG}&tab=buildChangesDiv) and [build log](${LOG}).`;

/** The newest direct message `who` can read, as raw Markdown. */
async function newestDirect(h: WebhookHarness, who: string): Promise<{ id: number; sender_id: number; content: string } | undefined> {
  const { messages } = expectSuccess(
    await h.t.get(who, "/api/v1/messages", {
      anchor: "newest",
      num_before: 1,
      num_after: 0,
      narrow: [{ operator: "is", operand: "dm" }],
      apply_markdown: false,
    }),
  );
  return messages.at(-1);
}

describe("TeamCity webhook", () => {
  const h = useWebhookHarness();
  itPosts(h, "teamcity", [
    {
      name: "a successful build",
      payload: fixture("teamcity", "success"),
      topic: "Backend :: Unit tests",
      content: `Backend :: Unit tests build 812 was successful! :thumbs_up: ${LINKS}`,
    },
    {
      name: "a successful build of a branch",
      payload: fixture("teamcity", "success_branch"),
      topic: "Backend :: Unit tests (feature/login)",
      content: `Backend :: Unit tests build 812 was successful! :thumbs_up: ${LINKS}`,
    },
    {
      name: "a build that broke",
      payload: fixture("teamcity", "broken"),
      topic: "Backend :: Unit tests",
      content: `Backend :: Unit tests build 812 is broken with status Exit code 1 (new)! :thumbs_down: ${LINKS}`,
    },
    {
      name: "a build still failing",
      payload: fixture("teamcity", "failure"),
      topic: "Backend :: Unit tests",
      content: `Backend :: Unit tests build 812 is still broken with status Exit code 1! :thumbs_down: ${LINKS}`,
    },
    {
      name: "a fixed build",
      payload: fixture("teamcity", "fixed"),
      topic: "Backend :: Unit tests",
      content: `Backend :: Unit tests build 812 has been fixed! :thumbs_up: ${LINKS}`,
    },
    {
      name: "a started build",
      payload: fixture("teamcity", "started"),
      topic: "Backend :: Unit tests",
      content: `Backend :: Unit tests build 812 has started. ${LINKS}`,
    },
  ]);

  it("a personal build is a direct message to the Zulip user who started it, not a channel message", async () => {
    const beforeChannel = (await h.newest())?.id ?? 0;
    expect(await h.post("teamcity", fixture("teamcity", "personal"))).toEqual({ status: 200, body: { result: "success", msg: "" } });
    expect(await h.since(beforeChannel)).toEqual([]);
    const dm = await newestDirect(h, "hamlet");
    expect(dm).toMatchObject({
      sender_id: h.bot().id,
      content: `Your personal build for Backend :: Unit tests build 812 is broken with status Exit code 1 (new)! :thumbs_down: ${LINKS}`,
    });
  });

  it("a personal build of someone Zulip cannot guess posts nothing", async () => {
    const personal = fixture("teamcity", "personal") as { build: Record<string, unknown> };
    const payload = {
      build: {
        ...personal.build,
        triggeredBy: "Yorick",
        teamcityProperties: [{ name: "env.BUILD_IS_PERSONAL", value: "true" }],
      },
    };
    const beforeChannel = (await h.newest())?.id ?? 0;
    const beforeDirect = (await newestDirect(h, "hamlet"))?.id ?? 0;
    expect(await h.post("teamcity", payload)).toEqual({ status: 200, body: { result: "success", msg: "" } });
    expect(await h.since(beforeChannel)).toEqual([]);
    expect((await newestDirect(h, "hamlet"))?.id ?? 0).toBe(beforeDirect);
  });

  it("a payload in another format (Slack's) posts nothing and tells the bot's owner", async () => {
    const beforeChannel = (await h.newest())?.id ?? 0;
    expect(await h.post("teamcity", fixture("teamcity", "slack_format"))).toEqual({ status: 200, body: { result: "success", msg: "" } });
    expect(await h.since(beforeChannel)).toEqual([]);
    const support = h.t.ctx.config.admin.email ?? "the server administrator";
    expect((await newestDirect(h, "hamlet"))?.content).toBe(
      `Hi there! Your bot Hooks just received a TeamCity payload in a
format that Zulip doesn't recognize. This usually indicates a
configuration issue in your TeamCity webhook settings. Please make sure
that you set the **Payload Format** option to **Legacy Webhook (JSON)**
in your TeamCity webhook configuration. Contact ${support} if you
need further help!`,
    );
  });

  const success = fixture("teamcity", "success") as { build: Record<string, unknown> };
  const { buildNumber: _, ...withoutNumber } = success.build;
  itRejects(h, "teamcity", { name: "a build without its number", payload: { build: withoutNumber }, msg: "payload['build']['buildNumber'] is missing" });
});
