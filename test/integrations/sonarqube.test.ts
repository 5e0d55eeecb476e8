import { describe } from "vitest";
import { itRejects } from "./ciSupport.js";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

const error = fixture("sonarqube", "analysis_error") as any;
const success = fixture("sonarqube", "analysis_success") as any;
const PROJECT = "[rocket](https://sonar.example.com/dashboard?id=acme_rocket)";
const FAILED =
  "* new coverage: **error** 42.5 should be greater than or equal to 80.\n" +
  "* new security rating: **error** 3 should be better or equal to 1.\n" +
  "* new duplicated lines density: **error**.";

describe("SonarQube webhook", () => {
  const h = useWebhookHarness();
  itPosts(h, "sonarqube", [
    {
      name: "a passed analysis of a branch",
      payload: success,
      topic: "rocket / main",
      content: `Project ${PROJECT} analysis of branch main resulted in success.`,
    },
    {
      name: "a failed analysis of a branch",
      payload: error,
      topic: "rocket / main",
      content: `Project ${PROJECT} analysis of branch main resulted in error:\n${FAILED}`,
    },
    {
      name: "a passed analysis without a branch",
      payload: { ...success, branch: undefined },
      topic: "rocket",
      content: `Project ${PROJECT} analysis resulted in success.`,
    },
    {
      name: "a failed analysis without a branch",
      payload: { ...error, branch: undefined },
      topic: "rocket",
      content: `Project ${PROJECT} analysis resulted in error:\n${FAILED}`,
    },
  ]);
  itRejects(h, "sonarqube", {
    name: "an analysis without its quality gate",
    payload: { ...error, qualityGate: undefined },
    msg: "payload['qualityGate'] is missing",
  });
});
