import { describe } from "vitest";
import { itRejects } from "./ciSupport.js";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

const GITHUB_COMMIT = "https://github.com/acme/rocket/commit/d1c7a9b3e5f2041e9a8b7c6d5e4f3a2b1c0d9e8f";
const BITBUCKET_COMMIT = "https://bitbucket.org/acme/rocket/commits/d1c7a9b3e5f2041e9a8b7c6d5e4f3a2b1c0d9e8f";

describe("CircleCI webhook", () => {
  const h = useWebhookHarness();
  itPosts(h, "circleci", [
    { name: "the test event", payload: fixture("circleci", "ping"), topic: "Test event", content: "Webhook 'Zulip' test event successful." },
    {
      name: "a GitHub workflow",
      payload: fixture("circleci", "github_workflow_completed"),
      topic: "rocket",
      content:
        "Workflow [`build-and-deploy`](https://app.circleci.com/pipelines/github/acme/rocket/57/workflows/e4bbb7f7-4a5a-4b39-a5a8-7d4c9f0a1b2c) within Pipeline #57 has failed.\n\n" +
        `Triggered on [\`d1c7a9b3e5f: Fix the fuel gauge rounding\`](${GITHUB_COMMIT}) on branch \`main\` by Ada Lovelace.`,
    },
    {
      name: "a GitHub job",
      payload: fixture("circleci", "github_job_completed"),
      topic: "rocket",
      content:
        "Job `unit-tests` within Pipeline #57 has succeeded.\n\n" +
        `Triggered on [\`d1c7a9b3e5f: Fix the fuel gauge rounding\`](${GITHUB_COMMIT}) on branch \`main\` by Ada Lovelace.`,
    },
    {
      name: "a Bitbucket job",
      payload: fixture("circleci", "bitbucket_job_completed"),
      topic: "rocket",
      content:
        "Job `unit-tests` within Pipeline #57 was unauthorized.\n\n" +
        `Triggered on [\`d1c7a9b3e5f: Fix the fuel gauge rounding\`](${BITBUCKET_COMMIT}) on branch \`main\` by Ada Lovelace.`,
    },
    {
      name: "a manually triggered Bitbucket workflow",
      payload: fixture("circleci", "bitbucket_manual_workflow_completed"),
      topic: "rocket",
      content:
        "Workflow [`build-and-deploy`](https://app.circleci.com/pipelines/bitbucket/acme/rocket/58/workflows/a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d) within Pipeline #58 has succeeded.\n\n" +
        "Triggered on `release`'s HEAD on [0a9b8c7d6e5](https://bitbucket.org/acme/rocket/commits/0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b).",
    },
    {
      name: "a workflow run for a tag",
      payload: fixture("circleci", "github_tag_workflow_completed"),
      topic: "rocket",
      content:
        "Workflow [`build-and-deploy`](https://app.circleci.com/pipelines/bitbucket/acme/rocket/58/workflows/a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d) within Pipeline #58 was canceled.\n\n" +
        "Triggered on the latest tag on [0a9b8c7d6e5](https://github.com/acme/rocket/commit/0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b).",
    },
    {
      name: "a GitLab workflow",
      payload: fixture("circleci", "gitlab_workflow_completed"),
      topic: "rocket-gitlab",
      content:
        "Workflow [`build-and-deploy`](https://app.circleci.com/pipelines/circleci/4Fq8sL1mYh2pQ/9kZt3vWx/12/workflows/f0e1d2c3-b4a5-4968-8776-655443322110) within Pipeline #12 had an error.\n\n" +
        "Triggered on [`5e6f7a8b9c0: Add a countdown timer`](https://gitlab.com/acme/rocket/-/commit/5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f) on branch `develop` by Grace Hopper.",
    },
    { name: "exclude_events leaves out jobs", payload: fixture("circleci", "github_job_completed"), query: { exclude_events: '["job-*"]' }, ignored: true },
  ]);
  const workflow = fixture("circleci", "github_workflow_completed") as Record<string, any>;
  itRejects(h, "circleci", {
    name: "a workflow without its pipeline number",
    payload: { ...workflow, pipeline: { ...workflow.pipeline, number: undefined } },
    msg: "payload['pipeline']['number'] is missing",
  });
  itRejects(h, "circleci", {
    name: "an event type CircleCI does not send",
    payload: { ...workflow, type: "pipeline-started" },
    msg: "payload['type'] is not one of 'job-completed', 'workflow-completed'",
  });
});
