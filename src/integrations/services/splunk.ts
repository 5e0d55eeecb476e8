import { badRequest } from "../../lib/errors.js";
import type { Payload } from "../payload.js";
import { defineIntegration } from "../types.js";

/**
 * Zulip's "splunk" integration: a saved search's alert, in a topic named for the search
 * (shortened to 60 characters), with the first result's host, source and raw event.
 */
const MAX_TOPIC_NAME_LENGTH = 60;

/** `payload.get(key, fallback)`, which must be a string. */
function orDefault(payload: Payload, key: string, fallback: string): string {
  return payload.has(key) ? payload.get(key).str() : fallback;
}

export default defineIntegration({
  name: "splunk",
  displayName: "Splunk",
  categories: ["monitoring"],
  setup: [
    "In Splunk, run the search you want alerts for and choose **Save As → Alert**. Set the alert's",
    "trigger conditions, add the trigger action **Webhook**, and set its **URL** to the URL above.",
    "Add `&topic=…` to the URL to choose the topic; otherwise the search's name is used.",
  ].join("\n"),
  handle({ payload }) {
    const searchName = orDefault(payload, "search_name", "Missing search_name");
    const resultsLink = orDefault(payload, "results_link", "Missing results_link");
    const result = payload.get("result");
    if (payload.has("result") && (result.value === null || typeof result.value !== "object" || Array.isArray(result.value))) {
      throw badRequest(`${result.path} is not a dict`);
    }
    const host = orDefault(result, "host", "Missing host");
    const source = orDefault(result, "source", "Missing source");
    const raw = orDefault(result, "_raw", "Missing _raw");
    const topic = [...searchName].length >= MAX_TOPIC_NAME_LENGTH ? [...searchName].slice(0, MAX_TOPIC_NAME_LENGTH - 3).join("") + "..." : searchName;
    return {
      topic,
      content: `Splunk alert from saved search:\n* **Search**: [${searchName}](${resultsLink})\n* **Host**: ${host}\n* **Source**: \`${source}\`\n* **Raw**: \`${raw}\``,
    };
  },
});
