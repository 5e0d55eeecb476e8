import { badRequest } from "../../lib/errors.js";
import { shortSha } from "../git.js";
import type { Payload } from "../payload.js";
import { defineIntegration } from "../types.js";

const STATUS_TEXT: Record<string, string> = {
  success: "has succeeded",
  failed: "has failed",
  canceled: "was canceled",
  unauthorized: "was unauthorized",
  error: "had an error",
};

/** Python's `dict.get(status)` formatted: an unknown status reads "None", as in Zulip. */
function statusText(status: string): string {
  return Object.hasOwn(STATUS_TEXT, status) ? (STATUS_TEXT[status] as string) : "None";
}

/** Zulip's check_url: an absolute http(s) URL. */
function url(p: Payload): string {
  const value = p.str();
  if (!/^https?:\/\/[^\s/]+/i.test(value)) throw badRequest(`${p.path} is not a URL`);
  return value;
}

/** The line saying what started the pipeline: a commit (GitHub, Bitbucket, GitLab), a manual run on a branch, or a tag. */
function commitDetails(pipeline: Payload): string {
  let details: string;
  let link: string;
  let author: string;
  let branch: string | null;
  if (pipeline.has("vcs")) {
    const vcs = pipeline.get("vcs");
    const revision = vcs.get("revision").str();
    const sha = shortSha(revision);
    const repoUrl = url(vcs.get("target_repository_url"));
    link = vcs.get("provider_name").str() === "github" ? `${repoUrl}/commit/${revision}` : `${repoUrl}/commits/${revision}`;
    branch = vcs.get("branch").optStr() ?? null;
    const subject = vcs.at("commit.subject").optStr();
    if (!subject) {
      if (!branch) return `Triggered on the latest tag on [${sha}](${link}).`;
      return `Triggered on \`${branch}\`'s HEAD on [${sha}](${link}).`;
    }
    details = `${sha}: ${subject}`;
    author = vcs.at("commit.author.name").str();
  } else {
    const gitlab = pipeline.at("trigger_parameters.gitlab");
    const title = gitlab.get("commit_title").str();
    const checkoutSha = gitlab.get("checkout_sha").str();
    details = `${shortSha(checkoutSha)}: ${title}`;
    author = gitlab.get("commit_author_name").str();
    link = `${url(gitlab.get("web_url"))}/-/commit/${checkoutSha}`;
    branch = gitlab.get("branch").str();
  }
  return `Triggered on [\`${details}\`](${link}) on branch \`${branch ?? "None"}\` by ${author}.`;
}

function body(payload: Payload, type: string): string {
  const pipeline = payload.get("pipeline");
  const number = pipeline.get("number").int();
  const details = commitDetails(pipeline);
  if (type === "job-completed") {
    const job = payload.get("job");
    const name = job.get("name").str();
    return `Job \`${name}\` within Pipeline #${number} ${statusText(job.get("status").str())}.\n\n${details}`;
  }
  if (type !== "workflow-completed") throw badRequest(`payload['type'] is not one of 'job-completed', 'workflow-completed'`);
  const workflow = payload.get("workflow");
  const name = workflow.get("name").str();
  const workflowUrl = url(workflow.get("url"));
  return `Workflow [\`${name}\`](${workflowUrl}) within Pipeline #${number} ${statusText(workflow.get("status").str())}.\n\n${details}`;
}

/** Zulip's "circleci" integration (CircleCI's webhooks): workflow and job completions, in a topic named for the project. */
export default defineIntegration({
  name: "circleci",
  displayName: "CircleCI",
  categories: ["continuous-integration"],
  allEventTypes: ["ping", "job-completed", "workflow-completed"],
  setup:
    "In CircleCI, open the project's **Project Settings**, select **Webhooks** and click **Add Webhook**. Give it a name, " +
    "set **Receiver URL** to the URL, choose the events to be told of, and click **Add Webhook**.",
  handle: ({ payload }) => {
    const type = payload.get("type").str();
    if (type === "ping") {
      return { topic: "Test event", content: `Webhook '${payload.at("webhook.name").str()}' test event successful.`, eventType: type };
    }
    const topic = payload.at("project.name").str();
    const content = body(payload, type);
    const pipeline = payload.get("pipeline");
    // Zulip supports only GitHub, Bitbucket and GitLab projects.
    if (pipeline.has("trigger_parameters") && pipeline.at("trigger.type").str() !== "gitlab") {
      throw badRequest("Projects using this version control system provider aren't supported");
    }
    return { topic, content, eventType: type };
  },
});
