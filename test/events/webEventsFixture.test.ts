import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { recordWebEvents } from "../support/webEvents.js";
import { useTestServer } from "../support/testApp.js";

const t = useTestServer();
const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/web-events.json");

describe("the recorded web app events (test/fixtures/web-events.json)", () => {
  it("are what the server sends today", async () => {
    const recording = JSON.stringify(stable(await recordWebEvents(t)), null, 1) + "\n";
    if (process.env.PARLEY_RECORD_FIXTURES === "1") fs.writeFileSync(FIXTURE, recording);
    expect(JSON.parse(recording), "re-record with PARLEY_RECORD_FIXTURES=1 npx vitest run test/events/webEventsFixture.test.ts").toEqual(
      JSON.parse(fs.readFileSync(FIXTURE, "utf8")),
    );
  });
});

/** The recording with what differs from run to run (times, the queue's id, file names) made constant. */
function stable(value: unknown, key = ""): unknown {
  if (Array.isArray(value)) return value.map((item) => stable(item, key));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stable(v, k)]));
  // Seconds since 1970 between 2001 and 2286: times of the run (ids and counts are far smaller).
  if (typeof value === "number" && value > 1e9 && value < 1e10) return 0;
  if (typeof value === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(value)) return "<time>";
  if (key === "queue_id") return "queue";
  // An uploaded emoji's file name is random.
  if (typeof value === "string" && /^(source|still)_url$/.test(key)) return value.replace(/\/emoji\/images\/[^/]+(\.\w+)$/, "/emoji/images/random$1");
  return value;
}
