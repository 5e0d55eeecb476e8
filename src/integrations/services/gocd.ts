import { shortSha } from "../git.js";
import type { Payload } from "../payload.js";
import { defineIntegration } from "../types.js";

function commitDetails(pipeline: Payload): string {
  const cause = pipeline.get("build-cause").get(0);
  const git = cause.at("material.git-configuration");
  const urlBase = git.get("url").str();
  const sha = shortSha(cause.get("modifications").get(0).get("revision").str());
  const branch = git.get("branch").str();
  return `[\`${sha}\`](${urlBase}/commit/${sha}) on branch \`${branch}\``;
}

/** The stage's jobs grouped by result, in the order each result first appears. */
function jobLines(stage: Payload): string {
  const byResult = new Map<string, string[]>();
  for (const job of stage.get("jobs").list()) {
    const name = job.get("name").str();
    const result = job.get("result").str();
    byResult.set(result, [...(byResult.get(result) ?? []), `\`${name}\``]);
  }
  return [...byResult].map(([result, names]) => `- **${result}**: ${names.join(", ")}\n`).join("");
}

function body(pipeline: Payload): string {
  const stage = pipeline.get("stage");
  const commit = commitDetails(pipeline);
  const status = stage.get("state").str().toLowerCase();
  const name = pipeline.get("name").str();
  const stageName = stage.get("name").str();
  const started = stage.get("create-time").str();
  if (status === "building") {
    return `**Pipeline ${status}**: ${name} / ${stageName}\n- **Commit**: ${commit}\n- **Started**: <time:${started}>`;
  }
  const result = stage.get("result").str();
  const emoji = result === "Passed" ? ":green_circle:" : ":red_circle:";
  const finished = stage.get("last-transition-time").str();
  return (
    `${emoji} **Build ${status}**: ${name} / ${stageName}\n- **Commit**: ${commit}\n- **Started**: <time:${started}>\n` +
    `- **Finished**: <time:${finished}>\n${jobLines(stage)}`
  );
}

/** Zulip's "gocd" integration (GoCD's stage status notifications): a stage's state, in a topic "<pipeline> / <stage>". */
export default defineIntegration({
  name: "gocd",
  displayName: "GoCD",
  webhookName: "Gocd",
  categories: ["continuous-integration"],
  setup:
    "Install GoCD's WebHook Notifier plugin. In its configuration (the `webhook_notify.properties` file on the GoCD server), " +
    "add the URL as an endpoint for stage status notifications, and restart the server.",
  handle: ({ payload }) => {
    if (payload.get("type").str() !== "stage") return null;
    const pipeline = payload.at("data.pipeline");
    const content = body(pipeline);
    return { topic: `${pipeline.get("name").str()} / ${pipeline.at("stage.name").str()}`, content };
  },
});
