import { describe } from "vitest";
import { itRejects } from "./ciSupport.js";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

const COMMIT = "[`b7e3c1a9d2f`](https://github.com/acme/rocket/commit/b7e3c1a9d2f) on branch `main`";

describe("GoCD webhook", () => {
  const h = useWebhookHarness();
  itPosts(h, "gocd", [
    {
      name: "a stage building",
      payload: fixture("gocd", "stage_building"),
      topic: "rocket-build / test",
      content: `**Pipeline building**: rocket-build / test\n- **Commit**: ${COMMIT}\n- **Started**: <time:Mar 2, 2024, 9:00:12 AM>`,
    },
    {
      name: "a stage that passed",
      payload: fixture("gocd", "stage_passed"),
      topic: "rocket-build / test",
      content:
        `:green_circle: **Build passed**: rocket-build / test\n- **Commit**: ${COMMIT}\n- **Started**: <time:Mar 2, 2024, 9:00:12 AM>\n` +
        "- **Finished**: <time:Mar 2, 2024, 9:06:40 AM>\n- **Passed**: `unit`",
    },
    {
      name: "a stage that failed, its jobs grouped by result",
      payload: fixture("gocd", "stage_failed"),
      topic: "rocket-build / test",
      content:
        `:red_circle: **Build failed**: rocket-build / test\n- **Commit**: ${COMMIT}\n- **Started**: <time:Mar 2, 2024, 9:00:12 AM>\n` +
        "- **Finished**: <time:Mar 2, 2024, 9:06:40 AM>\n- **Failed**: `lint`, `e2e`\n- **Passed**: `unit`",
    },
    { name: "a notification that is not about a stage", payload: { type: "agent", data: { agent_config_state: "Enabled" } }, ignored: true },
  ]);
  const failed = fixture("gocd", "stage_failed") as any;
  const noStageName = structuredClone(failed);
  delete noStageName.data.pipeline.stage.name;
  itRejects(h, "gocd", { name: "a stage without its name", payload: noStageName, msg: "payload['data']['pipeline']['stage']['name'] is missing" });
});
