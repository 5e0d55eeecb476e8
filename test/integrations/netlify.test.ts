import { describe } from "vitest";
import { itRejects } from "./ciSupport.js";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

const BUILD = "The build [rocket-docs](https://rocket-docs.netlify.app) on branch main";
const event = (name: string) => ({ "X-Netlify-Event": name });

describe("Netlify webhook", () => {
  const h = useWebhookHarness();
  itPosts(h, "netlify", [
    {
      name: "a deploy building",
      payload: fixture("netlify", "deploy_building"),
      headers: event("deploy_building"),
      topic: "main",
      content: `${BUILD} is now building.`,
    },
    {
      name: "a deploy created",
      payload: fixture("netlify", "deploy_created"),
      headers: event("deploy_created"),
      topic: "main",
      content: `${BUILD} is now ready.`,
    },
    {
      name: "a deploy failed",
      payload: fixture("netlify", "deploy_failed"),
      headers: event("deploy_failed"),
      topic: "main",
      content: `${BUILD} Failed during stage 'building site': Build script returned non-zero exit code: 2`,
    },
    {
      name: "a deploy locked",
      payload: fixture("netlify", "deploy_locked"),
      headers: event("deploy_locked"),
      topic: "main",
      content: `${BUILD} is now locked.`,
    },
    {
      name: "a deploy unlocked",
      payload: fixture("netlify", "deploy_unlocked"),
      headers: event("deploy_unlocked"),
      topic: "main",
      content: `${BUILD} is now unlocked.`,
    },
    {
      name: "an event Zulip does not post",
      payload: fixture("netlify", "deploy_created"),
      headers: event("submission_created"),
      ignored: { unsupportedEvent: "submission_created" },
    },
  ]);
  itRejects(h, "netlify", {
    name: "a payload without the event header",
    payload: fixture("netlify", "deploy_created"),
    msg: "Missing the HTTP event header 'X-Netlify-Event'",
  });
  const { branch: _, ...withoutBranch } = fixture("netlify", "deploy_created") as Record<string, unknown>;
  itRejects(h, "netlify", {
    name: "a deploy without its branch",
    payload: withoutBranch,
    headers: event("deploy_created"),
    msg: "payload['branch'] is missing",
  });
});
