import { describe } from "vitest";
import { itRejects } from "./ciSupport.js";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

const success = fixture("appveyor", "build_success") as any;

describe("AppVeyor webhook", () => {
  const h = useWebhookHarness();
  itPosts(h, "appveyor", [
    {
      name: "a successful build",
      payload: success,
      topic: "Rocket",
      content:
        "[Build Rocket 1.4.117 completed](https://ci.appveyor.com/project/acme/rocket/build/1.4.117):\n" +
        "* **Commit**: [b7e3c1a9d2: Tune the thrusters](https://github.com/acme/rocket/commit/b7e3c1a9d2) by Ada Lovelace\n" +
        "* **Started**: <time:2024-03-02T09:04:00+00:00>\n* **Finished**: <time:2024-03-02T12:06:00+00:00>",
    },
    {
      name: "a failed build across midnight",
      payload: fixture("appveyor", "build_failure"),
      topic: "Rocket",
      content:
        "[Build Rocket 1.4.117 failed](https://ci.appveyor.com/project/acme/rocket/build/1.4.117):\n" +
        "* **Commit**: [b7e3c1a9d2: Tune the thrusters](https://github.com/acme/rocket/commit/b7e3c1a9d2) by Ada Lovelace\n" +
        "* **Started**: <time:2023-12-31T23:58:00+00:00>\n* **Finished**: <time:2024-01-01T00:01:00+00:00>",
    },
  ]);
  const { commitId: _, ...withoutCommit } = success.eventData;
  itRejects(h, "appveyor", {
    name: "a build without its commit id",
    payload: { ...success, eventData: withoutCommit },
    msg: "payload['eventData']['commitId'] is missing",
  });
});
