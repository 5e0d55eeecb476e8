import { describe } from "vitest";
import { itRejects } from "./ciSupport.js";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

const FORM = "application/x-www-form-urlencoded";
const form = (payload: unknown) => new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
const build = fixture("travis", "build") as Record<string, unknown>;
const pullRequest = fixture("travis", "pull_request");
const DETAILS =
  "Details: [changes](https://github.com/acme/rocket/compare/6dccb98bcfd9...6c457d366a31), [build log](https://app.travis-ci.com/github/acme/rocket/builds/918273645)";

describe("Travis CI webhook", () => {
  const h = useWebhookHarness();
  itPosts(h, "travis", [
    {
      name: "a passed push build",
      payload: form(build),
      contentType: FORM,
      topic: "builds",
      content: `Author: Ada Lovelace\nBuild status: Passed :thumbs_up:\n${DETAILS}`,
    },
    {
      name: "a failed build",
      payload: form({ ...build, status_message: "Still Failing" }),
      contentType: FORM,
      topic: "builds",
      content: `Author: Ada Lovelace\nBuild status: Still Failing :thumbs_down:\n${DETAILS}`,
    },
    {
      name: "a pending build",
      payload: form({ ...build, status_message: "Pending" }),
      contentType: FORM,
      topic: "builds",
      content: `Author: Ada Lovelace\nBuild status: Pending :counterclockwise:\n${DETAILS}`,
    },
    {
      name: "a status Zulip has no emoji for",
      payload: form({ ...build, status_message: "Queued" }),
      contentType: FORM,
      topic: "builds",
      content: `Author: Ada Lovelace\nBuild status: Queued (No emoji specified for status 'Queued'.)\n${DETAILS}`,
    },
    { name: "a pull request build is ignored by default", payload: form(pullRequest), contentType: FORM, ignored: true },
    {
      name: "a pull request build with ignore_pull_requests=false",
      payload: form(pullRequest),
      contentType: FORM,
      query: { ignore_pull_requests: "false" },
      topic: "builds",
      content: `Author: Ada Lovelace\nBuild status: Broken :thumbs_down:\n${DETAILS}`,
    },
    {
      name: "only_events of pull_request leaves out pushes",
      payload: form(build),
      contentType: FORM,
      query: { ignore_pull_requests: "false", only_events: '["pull_request"]' },
      ignored: true,
    },
  ]);
  const { author_name: _, ...withoutAuthor } = build;
  itRejects(h, "travis", { name: "a build without its author", payload: form(withoutAuthor), contentType: FORM, msg: "payload['author_name'] is missing" });
  itRejects(h, "travis", { name: "a form without the payload field", payload: "build=1", contentType: FORM, msg: "Missing 'payload' argument" });
});
