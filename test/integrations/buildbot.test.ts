import { describe } from "vitest";
import { itRejects } from "./ciSupport.js";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

const finished = fixture("buildbot", "finished_success") as Record<string, unknown>;

describe("Buildbot webhook", () => {
  const h = useWebhookHarness();
  itPosts(h, "buildbot", [
    {
      name: "a started build",
      payload: fixture("buildbot", "started"),
      topic: "zulip-buildbot-test",
      content: "Build [#34](http://buildbot.example.com/#builders/1/builds/34) for **runtests** started.",
    },
    {
      name: "a successful build",
      payload: finished,
      topic: "zulip-buildbot-test",
      content: "Build [#34](http://buildbot.example.com/#builders/1/builds/34) (result: success) for **runtests** finished.",
    },
    {
      name: "a failed build",
      payload: { ...finished, results: 2 },
      topic: "zulip-buildbot-test",
      content: "Build [#34](http://buildbot.example.com/#builders/1/builds/34) (result: failure) for **runtests** finished.",
    },
    {
      name: "a cancelled build, in the topic general when there is no project",
      payload: { ...finished, results: 6, project: "" },
      topic: "general",
      content: "Build [#34](http://buildbot.example.com/#builders/1/builds/34) (result: cancelled) for **runtests** finished.",
    },
    {
      name: "a result code counted from the end, as Python indexes",
      payload: { ...finished, results: -1 },
      topic: "zulip-buildbot-test",
      content: "Build [#34](http://buildbot.example.com/#builders/1/builds/34) (result: cancelled) for **runtests** finished.",
    },
    {
      name: "only_events leaves out finished builds",
      payload: finished,
      query: { only_events: '["new"]' },
      ignored: true,
    },
    {
      name: "an event Buildbot's reporter does not send",
      payload: { ...finished, event: "rebuilt" },
      ignored: { unsupportedEvent: "rebuilt" },
    },
  ]);
  const { buildername: _, ...withoutBuilder } = finished;
  itRejects(h, "buildbot", { name: "a payload without the builder's name", payload: withoutBuilder, msg: "payload['buildername'] is missing" });
  itRejects(h, "buildbot", {
    name: "a result code Buildbot does not have",
    payload: { ...finished, results: 7 },
    msg: "payload['results'] is not a Buildbot result code",
  });
});
