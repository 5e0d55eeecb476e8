import { describe } from "vitest";
import { itRejects } from "./ciSupport.js";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

const FORM = "application/x-www-form-urlencoded";
const deploy = fixture("heroku", "deploy.txt") as string;

describe("Heroku webhook", () => {
  const h = useWebhookHarness();
  itPosts(h, "heroku", [
    {
      name: "a deploy",
      payload: deploy,
      contentType: FORM,
      topic: "rocket-staging",
      content:
        "ada@example.com deployed version 3eb5f44 of [rocket-staging](https://rocket-staging.herokuapp.com):\n\n" +
        "``` quote\n  * Ada Lovelace: Tune the thrusters\n  * Ada Lovelace: Add a fuel gauge\n```",
    },
  ]);
  const withoutHead = new URLSearchParams(deploy);
  withoutHead.delete("head");
  itRejects(h, "heroku", { name: "a deploy without its head", payload: withoutHead.toString(), contentType: FORM, msg: "Missing 'head' argument" });
});
