import { badRequest } from "../../lib/errors.js";
import type { Payload } from "../payload.js";
import { ownEntry } from "../ciText.js";
import { defineIntegration } from "../types.js";

/** Buildbot's result codes, by index (docs.buildbot.net, "Build Result Codes"). */
const RESULTS = ["success", "warnings", "failure", "skipped", "exception", "retry", "cancelled"] as const;

/** The result code as Python's `RESULTS[code]` reads it (a negative code counts from the end). */
function result(payload: Payload): string {
  const code = payload.get("results");
  const index = code.int();
  const name = RESULTS[index < 0 ? RESULTS.length + index : index];
  if (name === undefined) throw badRequest(`${code.path} is not a Buildbot result code`);
  return name;
}

const BODIES: Record<string, (payload: Payload, status: string | undefined) => string> = {
  new: (p) => `Build [#${p.get("buildid").int()}](${p.get("url").str()}) for **${p.get("buildername").str()}** started.`,
  finished: (p, status) => {
    const id = p.get("buildid").int();
    const name = p.get("buildername").str();
    const url = p.get("url").str();
    if (status === undefined) throw badRequest("payload['results'] is missing");
    return `Build [#${id}](${url}) (result: ${status}) for **${name}** finished.`;
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
    // As Zulip: a result present is read whatever the event.
    const status = payload.has("results") ? result(payload) : undefined;
    const event = payload.get("event").str();
    const body = ownEntry(BODIES, event);
    if (!body) throw unsupported(event);
    return { topic, content: body(payload, status), eventType: event };
  },
});
