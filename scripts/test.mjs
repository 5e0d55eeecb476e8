#!/usr/bin/env node
// `npm test`: the whole suite on SQLite, then again on PostgreSQL when PARLEY_TEST_POSTGRES_URL
// is set (a URL of a server where the tests may create and drop databases). Extra arguments go
// to vitest (e.g. `npm test -- test/api/users.test.ts`). Ends with one summary line
// "N passed, N failed, N skipped" over both runs; exits non-zero if either run failed.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const extra = process.argv.slice(2);
const runs = [{ name: "SQLite", env: { PARLEY_TEST_DATABASE: "sqlite" } }];
if (process.env.PARLEY_TEST_POSTGRES_URL) {
  runs.push({ name: "PostgreSQL", env: { PARLEY_TEST_DATABASE: "postgres" } });
} else {
  console.log("PARLEY_TEST_POSTGRES_URL is not set: skipping the PostgreSQL run (SQLite only).");
}

const totals = { passed: 0, failed: 0, skipped: 0 };
/** "run: file > test: first line of the error" for each failed test, repeated at the very end. */
const failures = [];
let ok = true;
for (const run of runs) {
  console.log(`\n=== Test suite on ${run.name} ===`);
  const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "parley-report-")), "report.json");
  const result = spawnSync(
    process.execPath,
    [path.resolve("node_modules/vitest/vitest.mjs"), "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...extra],
    { stdio: "inherit", env: { ...process.env, ...run.env } },
  );
  if (result.status !== 0) ok = false;
  try {
    const json = JSON.parse(fs.readFileSync(report, "utf8"));
    totals.passed += json.numPassedTests;
    totals.failed += json.numFailedTests;
    totals.skipped += json.numPendingTests + json.numTodoTests;
    console.log(`${run.name}: ${json.numPassedTests} passed, ${json.numFailedTests} failed`);
    for (const file of json.testResults) {
      const relative = path.relative(process.cwd(), file.name);
      if (file.status === "failed" && file.assertionResults.every((t) => t.status !== "failed")) {
        failures.push(`${run.name}: ${relative}: ${String(file.message).split("\n")[0]}`);
      }
      for (const test of file.assertionResults.filter((t) => t.status === "failed")) {
        failures.push(`${run.name}: ${relative} > ${test.fullName}: ${String(test.failureMessages[0] ?? "").split("\n")[0]}`);
      }
    }
  } catch {
    ok = false;
    console.log(`${run.name}: no report (the run crashed)`);
  }
}
if (failures.length > 0) console.log(`\nFailed:\n${failures.map((f) => `- ${f}`).join("\n")}`);
console.log(`\n${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(ok && totals.failed === 0 ? 0 : 1);
