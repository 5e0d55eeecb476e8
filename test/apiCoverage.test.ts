import { spawnSync } from "node:child_process";
import path from "node:path";
import { expect, it } from "vitest";

/** docs/api-coverage.md must match what scripts/api-coverage.mjs generates from the route table now. */
it("docs/api-coverage.md is up to date with src/http/routes.ts (run `npm run api-coverage`)", () => {
  const script = path.resolve(import.meta.dirname, "../scripts/api-coverage.mjs");
  const result = spawnSync(process.execPath, [script, "--check"], { encoding: "utf8" });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
});
