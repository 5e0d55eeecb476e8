import { badRequest } from "../../lib/errors.js";
import type { Payload } from "../payload.js";
import { ownEntry } from "../ciText.js";
import { defineIntegration } from "../types.js";

/** Buildbot's result codes, by index (docs.buildbot.net, "Build Result Codes"). */
const RESULTS = ["success", "warnings", "failure", "skipped", "exception", "retry", "cancelled"] as const;

function result(payload: Payload): string {
  const code = payload.get("results");
  const name = RESULTS[code.int()];
  if (name === undefined) throw badRequest(`${code.path} is not a Buildbot result code`);
  return name;
}

const BODIES: Record<string, (payload: Payload) => string> = {
  new: (p) => `Build [#${p.get("buildid").int()}](${p.get("url").str()}) for **${p.get("buildername").str()}** started.`,
  finished: (p) => {
    const status = result(p);
    return `Build [#${p.get("buildid").int()}](${p.get("url").str()}) (result: ${status}) for **${p.get("buildername").str()}** finished.`;
  },
};

/** Zulip's "buildbot" integration: a build started or finished, in a topic named for the project. */
export default defineIntegration({
  name: "buildbot",
  displayName: "Buildbot",
  categories: ["continuous-integration"],
  allEventTypes: ["new", "finished"],
  setup:
    "In your Buildbot master configuration, add an `HttpStatusPush` reporter whose `serverUrl` is the URL " +
    "(in `master.cfg`: `c['services'].append(reporters.HttpStatusPush(serverUrl=\"<URL>\"))`), then restart the master.",
  handle: ({ payload, unsupported }) => {
    const topic = payload.get("project").str() || "general";
    const event = payload.get("event").str();
    const body = ownEntry(BODIES, event);
    if (!body) throw unsupported(event);
    return { topic, content: body(payload), eventType: event };
  },
});
