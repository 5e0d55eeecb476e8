import { describe } from "vitest";
import { itRejects } from "./ciSupport.js";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

const WORKFLOW = "https://acme.semaphoreci.com/workflows/acabe58e-4bcc-4d39-be06-e98d71917703";
const push = fixture("semaphore", "push") as any;
const pullRequest = fixture("semaphore", "pull_request") as any;
const tag = fixture("semaphore", "tag") as any;
const elsewhere = (payload: any) => ({ ...payload, repository: { url: "https://gitlab.example.com/acme/rocket", slug: "acme/rocket" } });
const COMMIT = "[b7e3c1a9d2f: Tune the thrusters](https://github.com/acme/rocket/commit/b7e3c1a9d2f4056e8a1b2c3d4e5f60718293a4b5)";

describe("Semaphore webhook", () => {
  const h = useWebhookHarness();
  itPosts(h, "semaphore", [
    {
      name: "a Semaphore Classic build",
      payload: fixture("semaphore", "build"),
      topic: "rocket/main",
      content: "[Build 88](https://semaphoreci.com/acme/rocket/branches/main/builds/88) failed:\n" + `* **Commit**: ${COMMIT}\n* **Author**: ada@example.com`,
    },
    {
      name: "a Semaphore Classic deploy",
      payload: fixture("semaphore", "deploy"),
      topic: "rocket/main",
      content:
        "[Deploy 12](https://semaphoreci.com/acme/rocket/servers/production/deploys/12) of [build 88](https://semaphoreci.com/acme/rocket/branches/main/builds/88) passed:\n" +
        `* **Commit**: ${COMMIT}\n* **Author**: ada@example.com\n* **Server**: production`,
    },
    {
      name: "a Semaphore Classic event Zulip has no text for",
      payload: { ...(fixture("semaphore", "build") as object), event: "unknown" },
      topic: "rocket/main",
      content: "unknown: failed",
    },
    {
      name: "a Semaphore 2.0 push to a GitHub repository",
      payload: push,
      topic: "rocket/feature/gauge",
      content:
        `[Rocket CI](${WORKFLOW}) pipeline **passed**:\n` +
        "* **Commit**: [(2d9f5fcec1c)](https://github.com/acme/rocket/commit/2d9f5fcec1ca7c68fa7bd44dd58ec4ff65814563) Add a fuel gauge\n" +
        "* **Branch**: feature/gauge\n* **Author**: [ada](https://github.com/ada)",
    },
    {
      name: "a Semaphore 2.0 push elsewhere",
      payload: elsewhere(push),
      topic: "rocket/feature/gauge",
      content: `[Rocket CI](${WORKFLOW}) pipeline **passed**:\n* **Commit**: (2d9f5fcec1c) Add a fuel gauge\n* **Branch**: feature/gauge\n* **Author**: ada`,
    },
    {
      name: "a Semaphore 2.0 pull request",
      payload: pullRequest,
      topic: "rocket/feature/gauge",
      content:
        `[Rocket CI](${WORKFLOW}) pipeline **failed**:\n* **Pull request**: [Add a fuel gauge](https://github.com/acme/rocket/pull/7)\n` +
        "* **Branch**: feature/gauge\n* **Author**: [ada](https://github.com/ada)",
    },
    {
      name: "a Semaphore 2.0 pull request elsewhere",
      payload: elsewhere(pullRequest),
      topic: "rocket/feature/gauge",
      content: `[Rocket CI](${WORKFLOW}) pipeline **failed**:\n* **Pull request**: Add a fuel gauge (#7)\n* **Branch**: feature/gauge\n* **Author**: ada`,
    },
    {
      name: "a Semaphore 2.0 tag",
      payload: tag,
      topic: "rocket",
      content: `[Rocket CI](${WORKFLOW}) pipeline **stopped**:\n* **Tag**: [v2.1.0](https://github.com/acme/rocket/tree/v2.1.0)\n* **Author**: [ada](https://github.com/ada)`,
    },
    {
      name: "a Semaphore 2.0 tag elsewhere",
      payload: elsewhere(tag),
      topic: "rocket",
      content: `[Rocket CI](${WORKFLOW}) pipeline **stopped**:\n* **Tag**: v2.1.0\n* **Author**: ada`,
    },
    {
      name: "a Semaphore 2.0 reference type Zulip does not know",
      payload: { ...tag, revision: { ...tag.revision, reference_type: "schedule" } },
      topic: "rocket",
      content: `[Rocket CI](${WORKFLOW}) pipeline **stopped** for schedule event`,
    },
    { name: "only_events leaves out tags", payload: tag, query: { only_events: '["branch", "pull_request"]' }, ignored: true },
  ]);
  const { workflow: _, ...withoutWorkflow } = push;
  itRejects(h, "semaphore", { name: "a pipeline without its workflow", payload: withoutWorkflow, msg: "payload['workflow'] is missing" });
});
