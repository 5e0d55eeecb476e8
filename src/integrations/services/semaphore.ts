import { firstLine } from "../ciText.js";
import { shortSha } from "../git.js";
import type { Payload } from "../payload.js";
import { defineIntegration, type WebhookMessage } from "../types.js";

/** Semaphore Classic: a build or deploy of the branch's last commit. */
function classic(payload: Payload): { content: string; project: string; branch: string; event: string } {
  const branch = payload.get("branch_name").str();
  const project = payload.get("project_name").str();
  const result = payload.get("result").str();
  const event = payload.get("event").str();
  const commit = payload.get("commit");
  const sha = shortSha(commit.get("id").str());
  const commitUrl = commit.get("url").str();
  const email = commit.get("author_email").str();
  const message = firstLine(commit.get("message").str(), commit.get("message").path);
  const commitLine = `* **Commit**: [${sha}: ${message}](${commitUrl})\n* **Author**: ${email}`;
  let content: string;
  if (event === "build") {
    const buildUrl = payload.get("build_url").str();
    const buildNumber = payload.get("build_number").int();
    content = `[Build ${buildNumber}](${buildUrl}) ${result}:\n${commitLine}`;
  } else if (event === "deploy") {
    const buildUrl = payload.get("build_html_url").str();
    const buildNumber = payload.get("build_number").int();
    const deployUrl = payload.get("html_url").str();
    const deployNumber = payload.get("number").int();
    const server = payload.get("server_name").str();
    content = `[Deploy ${deployNumber}](${deployUrl}) of [build ${buildNumber}](${buildUrl}) ${result}:\n${commitLine}\n* **Server**: ${server}`;
  } else {
    content = `${event}: ${result}`;
  }
  return { content, project, branch, event };
}

function isGitHub(repoUrl: string): boolean {
  try {
    return new URL(repoUrl).hostname === "github.com";
  } catch {
    return false;
  }
}

/** Semaphore 2.0: a pipeline's result for a push, pull request or tag (links only for GitHub repositories). */
function semaphore2(payload: Payload): { content: string; project: string; branch: string; event: string } {
  const repoUrl = payload.at("repository.url").str();
  const project = payload.at("project.name").str();
  const organization = payload.at("organization.name").str();
  const revision = payload.get("revision");
  const author = revision.at("sender.login").str();
  const workflowId = payload.at("workflow.id").str();
  const pipelineName = payload.at("pipeline.name").str();
  const pipelineResult = payload.at("pipeline.result").str();
  const workflowUrl = `https://${organization}.semaphoreci.com/workflows/${workflowId}`;
  const event = revision.get("reference_type").str();
  const github = isGitHub(repoUrl);
  const head = `[${pipelineName}](${workflowUrl}) pipeline **${pipelineResult}**`;
  const authorLine = github ? `* **Author**: [${author}](https://github.com/${author})` : `* **Author**: ${author}`;

  if (event === "branch") {
    const commitId = revision.get("commit_sha").str();
    const branch = revision.at("branch.name").str();
    const message = firstLine(revision.get("commit_message").str(), revision.get("commit_message").path);
    const sha = shortSha(commitId);
    const commitLine = github ? `[(${sha})](${repoUrl}/commit/${commitId}) ${message}` : `(${sha}) ${message}`;
    return { content: `${head}:\n* **Commit**: ${commitLine}\n* **Branch**: ${branch}\n${authorLine}`, project, branch, event };
  }
  if (event === "pull_request") {
    const pr = revision.get("pull_request");
    const branch = pr.get("branch_name").str();
    const title = pr.get("name").str();
    const number = pr.get("number").str();
    const prLine = github ? `[${title}](${repoUrl}/pull/${number})` : `${title} (#${number})`;
    return { content: `${head}:\n* **Pull request**: ${prLine}\n* **Branch**: ${branch}\n${authorLine}`, project, branch, event };
  }
  if (event === "tag") {
    const tag = revision.at("tag.name").str();
    const tagLine = github ? `[${tag}](${repoUrl}/tree/${tag})` : tag;
    return { content: `${head}:\n* **Tag**: ${tagLine}\n${authorLine}`, project, branch: "", event };
  }
  return { content: `${head} for ${event} event`, project, branch: "", event };
}

/** Zulip's "semaphore" integration: Semaphore Classic builds and deploys, and Semaphore 2.0 pipelines. */
export default defineIntegration({
  name: "semaphore",
  displayName: "Semaphore",
  categories: ["continuous-integration", "deployment"],
  allEventTypes: ["build", "tag", "unknown", "branch", "deploy", "pull_request"],
  setup:
    "In Semaphore, open **Notifications** in the **Configuration** section of the sidebar and click **Create New Notification**. " +
    "Name it (for example `Zulip`), set the rules you want, put the URL in the webhook **Endpoint** field, and click **Save Changes**.",
  handle: ({ payload }): WebhookMessage => {
    const { content, project, branch, event } = payload.has("event") ? classic(payload) : semaphore2(payload);
    return { topic: branch ? `${project}/${branch}` : project, content, eventType: event };
  },
});
