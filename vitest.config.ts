import { defineConfig } from "vitest/config";

/**
 * Test files that never touch a database (unit tests of pure code: parameter parsing, Markdown,
 * the web app's hash and unread bookkeeping). `npm test` runs the suite once per engine; these run
 * only in the SQLite run, where they give the same answer. A file here must not open a database.
 */
const ENGINE_INDEPENDENT = [
  "src/**/*.test.ts",
  "test/markdown/**/*.test.ts",
  "test/web/**/*.test.ts",
  "test/import/**/*.test.ts",
  "test/apiCoverage.test.ts",
  "test/commitMsg.test.ts",
];

/**
 * The web app in Chromium: it speaks only the API, whose behaviour the other files test on both
 * engines, so the browser tests run once, in the SQLite run (on PostgreSQL, two browsers, two servers
 * and the database server on two cores made their timing flaky, and tested nothing the API tests
 * do not).
 */
const BROWSER = ["test/browser/**/*.test.ts"];

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    exclude: ["**/node_modules/**", ...(process.env.PARLEY_TEST_DATABASE === "postgres" ? [...ENGINE_INDEPENDENT, ...BROWSER] : [])],
    globalSetup: ["test/support/globalSetup.ts"],
    testTimeout: 20_000,
    // expect.poll waits for what arrives through the server (events, jobs, a browser's update):
    // 5 s instead of vitest's 1 s, which a loaded CI machine overran now and then.
    expect: { poll: { timeout: 5_000 } },
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    // A worker keeps its loaded modules from one test file to the next instead of importing the
    // whole server again per file (that import was ~180 s of every run). Files share no state:
    // each starts its own server on its own database, and restores what it changes in process.env.
    isolate: false,
  },
});
