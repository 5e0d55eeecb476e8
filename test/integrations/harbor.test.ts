import { describe } from "vitest";
import { itRejects } from "./ciSupport.js";
import { fixture, itPosts, useWebhookHarness } from "./support.js";

const push = fixture("harbor", "push_artifact") as any;
const scan = fixture("harbor", "scanning_completed") as any;
const REPORT = "application/vnd.security.vulnerability.report; version=1.1";

function withResource(payload: any, change: (resource: any) => void): unknown {
  const copy = structuredClone(payload);
  change(copy.event_data.resources[0]);
  return copy;
}

describe("Harbor webhook", () => {
  const h = useWebhookHarness();
  itPosts(h, "harbor", [
    { name: "an image pushed", payload: push, topic: "acme/rocket", content: "**ada** pushed image `acme/rocket:1.4.117`" },
    {
      name: "a scan completed",
      payload: scan,
      topic: "acme/rocket",
      content: "Image scan completed for `acme/rocket:1.4.117`. Vulnerabilities by severity:\n\n* Critical: **1**\n* High: **3**\n* Medium: **5**",
    },
    {
      name: "a scan of an untagged image that found nothing",
      payload: withResource(scan, (r) => {
        delete r.tag;
        r.scan_overview[REPORT].summary.summary = {};
      }),
      topic: "acme/rocket",
      content:
        "Image scan completed for `acme/rocket@sha256:4f1c8e2d9a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d`. Vulnerabilities by severity:\n\nNone",
    },
    { name: "an artifact deleted is ignored", payload: { ...push, type: "DELETE_ARTIFACT" }, ignored: true },
    { name: "a quota event Zulip does not post", payload: { ...push, type: "QUOTA_EXCEED" }, ignored: { unsupportedEvent: "QUOTA_EXCEED" } },
    {
      name: "a scan in a report format Zulip does not read",
      payload: withResource(scan, (r) => {
        r.scan_overview = { "application/vnd.scanner.adapter.vuln.report.harbor+json; version=1.0": r.scan_overview[REPORT] };
      }),
      ignored: { unsupportedEvent: "['application/vnd.scanner.adapter.vuln.report.harbor+json; version=1.0']" },
    },
  ]);
  itRejects(h, "harbor", {
    name: "an event without its repository",
    payload: { ...push, event_data: { resources: push.event_data.resources } },
    msg: "payload['event_data']['repository'] is missing",
  });
});
