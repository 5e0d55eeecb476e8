import { describe, expect, it } from "vitest";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

const LINK =
  "https://splunk.example.com:8000/app/search/search?q=%7Cloadjob%20scheduler__admin__search__RMD5failedlogins_at_1747212600_12&earliest=0&latest=now";
const HOST = "* **Host**: web-3\n* **Source**: `/var/log/secure`";
const RAW = "* **Raw**: `May 14 08:50:01 web-3 sshd[2211]: Failed password for invalid user admin from 203.0.113.9 port 52144 ssh2`";
const LONG = "failed-ssh-logins-from-the-internet-on-any-of-the-public-web-servers-in-every-region";

describe("splunk", () => {
  const h = useWebhookHarness();

  itPosts(h, "splunk", [
    {
      name: "a saved search's alert, in a topic named for the search",
      payload: fixture("splunk", "search_result"),
      topic: "Failed SSH logins",
      content: `Splunk alert from saved search:\n* **Search**: [Failed SSH logins](${LINK})\n${HOST}\n${RAW}`,
    },
    {
      name: "the URL's topic replaces the search's name",
      payload: fixture("splunk", "search_result"),
      query: { topic: "SSH alerts" },
      topic: "SSH alerts",
      content: `Splunk alert from saved search:\n* **Search**: [Failed SSH logins](${LINK})\n${HOST}\n${RAW}`,
    },
    {
      name: "a long search name is shortened for the topic",
      payload: fixture("splunk", "long_search_name"),
      topic: "failed-ssh-logins-from-the-internet-on-any-of-the-public-...",
      content: `Splunk alert from saved search:\n* **Search**: [${LONG}](${LINK})\n${HOST}\n${RAW}`,
    },
    {
      name: "a missing search name and link",
      payload: fixture("splunk", "missing_search"),
      topic: "Missing search_name",
      content: `Splunk alert from saved search:\n* **Search**: [Missing search_name](Missing results_link)\n${HOST}\n${RAW}`,
    },
    {
      name: "a result without host, source or raw event",
      payload: fixture("splunk", "missing_result_fields"),
      topic: "Failed SSH logins",
      content: `Splunk alert from saved search:\n* **Search**: [Failed SSH logins](${LINK})\n* **Host**: Missing host\n* **Source**: \`Missing source\`\n* **Raw**: \`Missing _raw\``,
    },
  ]);

  it("a search name that is not a string is a 400, and nothing is posted", async () => {
    const before = (await h.newest())?.id ?? 0;
    const res = await h.post("splunk", { ...(fixture("splunk", "search_result") as object), search_name: 42 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: "error", msg: "payload['search_name'] is not a string" });
    expect(await h.since(before)).toEqual([]);
  });
});
