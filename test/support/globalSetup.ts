/**
 * Runs once before the suite: builds dist/cli.js (and the web app) when a source file changed since
 * the last build, so the tests that run Parley as a child process start the bundle `npm start` runs
 * — about 0.5 s per start instead of several seconds of compiling src/ through tsx each time.
 */
// @ts-expect-error scripts/build.mjs is plain JavaScript without type declarations
import { build, isBuilt } from "../../scripts/build.mjs";

export default async function setup(): Promise<void> {
  if (!isBuilt()) await build();
}
