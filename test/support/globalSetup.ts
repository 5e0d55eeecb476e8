/**
 * Runs once before the suite:
 * - builds dist/cli.js (and the web app) when a source file changed since the last build, so the
 *   tests that run Parley as a child process start the bundle `npm start` runs — about 0.5 s per
 *   start instead of several seconds of compiling src/ through tsx each time;
 * - builds the migrated, seeded database the TestServers copy (templateDb.ts), and drops it after.
 */
import type { TestProject } from "vitest/node";
// @ts-expect-error scripts/build.mjs is plain JavaScript without type declarations
import { build, isBuilt } from "../../scripts/build.mjs";
import { buildTemplateDatabase } from "./templateDb.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The template database's file (SQLite) or name (PostgreSQL). */
    templateDatabase: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!isBuilt()) await build();
  const { template, drop } = await buildTemplateDatabase();
  project.provide("templateDatabase", template);
  return drop;
}
