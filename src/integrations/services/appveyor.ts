import { badRequest } from "../../lib/errors.js";
import { globalTime } from "../ciText.js";
import type { Payload } from "../payload.js";
import { defineIntegration } from "../types.js";

/** AppVeyor's "9/9/2018 7:04 PM" (UTC), as Python's strptime("%m/%d/%Y %I:%M %p") reads it, in Zulip's <time:…> syntax. */
function appveyorTime(p: Payload): string {
  const match = /^\s*(\d{1,2})\/(\d{1,2})\/(\d{4}) +(\d{1,2}):(\d{1,2}) +(AM|PM)\s*$/i.exec(p.str());
  const [, month, day, year, hour12, minute, half] = match ?? [];
  const m = Number(month);
  const d = Number(day);
  const h = Number(hour12);
  const min = Number(minute);
  if (!match || m < 1 || m > 12 || h < 1 || h > 12 || min > 59) throw badRequest(`${p.path} is not a date AppVeyor sends`);
  const hour = (h % 12) + (half?.toUpperCase() === "PM" ? 12 : 0);
  const date = new Date(Date.UTC(Number(year), m - 1, d, hour, min));
  if (date.getUTCDate() !== d) throw badRequest(`${p.path} is not a date AppVeyor sends`);
  return globalTime(date);
}

/** Zulip's "appveyor" integration: a build's result, in a topic named for the project. */
export default defineIntegration({
  name: "appveyor",
  displayName: "AppVeyor",
  webhookName: "Appveyor",
  categories: ["continuous-integration"],
  setup:
    "In your AppVeyor project's settings, select **Notifications**, click **Add notification** and choose **Webhook**. " +
    "Set **Webhook URL** to the URL, pick the events to be told of, and click **Save**.",
  handle: ({ payload }) => {
    const data = payload.get("eventData");
    const field = (name: string) => data.get(name).str();
    const [project, version, status, buildUrl, commitUrl, committer] = ["projectName", "buildVersion", "status", "buildUrl", "commitUrl", "committerName"].map(
      field,
    );
    field("commitDate");
    const [message, commitId] = ["commitMessage", "commitId"].map(field);
    const started = appveyorTime(data.get("started"));
    const finished = appveyorTime(data.get("finished"));
    return {
      topic: data.get("projectName").str(),
      content:
        `[Build ${project} ${version} ${status}](${buildUrl}):\n` +
        `* **Commit**: [${commitId}: ${message}](${commitUrl}) by ${committer}\n` +
        `* **Started**: ${started}\n* **Finished**: ${finished}`,
    };
  },
});
