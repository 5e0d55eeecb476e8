import type { Payload } from "../payload.js";
import { defineIntegration } from "../types.js";

/** What each failed condition's operator says the value should have been. */
const INVERSE_OPERATORS: Record<string, string> = {
  WORSE_THAN: "should be better or equal to",
  GREATER_THAN: "should be less than or equal to",
  LESS_THAN: "should be greater than or equal to",
};

function condition(c: Payload): string {
  const metric = c.get("metric").str().split("_").join(" ");
  const op = c.get("operator").str();
  const operator = Object.hasOwn(INVERSE_OPERATORS, op) ? INVERSE_OPERATORS[op] : op;
  const value = c.has("value") ? c.get("value").str() : "no value";
  const status = c.get("status").str().toLowerCase();
  const threshold = c.get("errorThreshold").str();
  if (value === "no value") return `* ${metric}: **${status}**.`;
  return `* ${metric}: **${status}** ${value} ${operator} ${threshold}.`;
}

/** The quality gate's conditions that did not pass, one line each. */
function conditions(gate: Payload): string {
  return gate
    .get("conditions")
    .list()
    .filter((c) => !["ok", "no_value"].includes(c.get("status").str().toLowerCase()))
    .map(condition)
    .join("\n");
}

/** Zulip's "sonarqube" integration: a project analysis and its quality gate, in a topic "<project> / <branch>". */
export default defineIntegration({
  name: "sonarqube",
  displayName: "SonarQube",
  webhookName: "Sonarqube",
  categories: ["continuous-integration"],
  setup:
    "In SonarQube, open the project, select **Administration** → **Webhooks** and click **Create**. Name it (for example `Zulip`), " +
    "set **URL** to the URL, and click **Create**. Webhooks for every project are under **Configuration** → **Webhooks**.",
  handle: ({ payload }) => {
    const project = payload.at("project.name").str();
    const branch = payload.has("branch") ? payload.get("branch").get("name").optStr() : undefined;
    const url = payload.at("project.url").str();
    const gate = payload.get("qualityGate");
    const result = gate.get("status").str().toLowerCase() === "ok" ? "success" : "error";
    const failed = conditions(gate);
    const head = branch
      ? `Project [${project}](${url}) analysis of branch ${branch} resulted in ${result}`
      : `Project [${project}](${url}) analysis resulted in ${result}`;
    return { topic: branch ? `${project} / ${branch}` : project, content: failed ? `${head}:\n${failed}` : `${head}.` };
  },
});
