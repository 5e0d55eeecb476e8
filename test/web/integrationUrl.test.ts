import { describe, expect, it } from "vitest";
import { DIRECT_MESSAGE, integrationUrl } from "../../web/src/integrationUrl.js";

// The URL of "Generate URL for an integration", as Zulip's dialog writes it: api_key, stream
// (an id), topic, only_events (a JSON list), then the integration's own options.
const base = { apiKey: "abcd1234", integration: "github", topic: null, events: null, options: {} };

describe("the integration URL", () => {
  it("names the channel by id, and has no stream (nor topic) for a direct message to me", () => {
    expect(integrationUrl("https://chat.example.com/", { ...base, channel: 7 })).toBe(
      "https://chat.example.com/api/v1/external/github?api_key=abcd1234&stream=7",
    );
    expect(integrationUrl("https://chat.example.com", { ...base, channel: DIRECT_MESSAGE, topic: "ignored" })).toBe(
      "https://chat.example.com/api/v1/external/github?api_key=abcd1234",
    );
  });

  it("adds the topic, the chosen events and the options, encoded", () => {
    const url = integrationUrl("https://chat.example.com", {
      ...base,
      channel: 3,
      topic: "CI & builds",
      events: ["push", "pull_request"],
      options: { branches: "main,dev", ignore_private_repositories: true, off: false, empty: "" },
    });
    expect(url).toBe(
      "https://chat.example.com/api/v1/external/github?api_key=abcd1234&stream=3&topic=CI+%26+builds" +
        "&only_events=%5B%22push%22%2C%22pull_request%22%5D&branches=main%2Cdev&ignore_private_repositories=true",
    );
    const query = new URL(url).searchParams;
    expect(JSON.parse(query.get("only_events")!)).toEqual(["push", "pull_request"]);
    expect(query.get("topic")).toBe("CI & builds");
  });

  it("leaves out an empty event choice", () => {
    expect(integrationUrl("http://x", { ...base, channel: 1, events: [] })).toBe("http://x/api/v1/external/github?api_key=abcd1234&stream=1");
  });
});
