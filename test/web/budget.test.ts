import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { expect, it } from "vitest";
import { REPO_ROOT } from "../support/process.js";
import { defined } from "../../src/util/defined.js";

// Issue 16's budget: the JavaScript the app needs to start, ≤ 100 KB gzip (dist/web, built by `npm install`).
it("keeps the initial JavaScript within 100 KB gzip", () => {
  const dir = path.join(REPO_ROOT, "dist", "web");
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, ".vite", "manifest.json"), "utf8")) as Record<
    string,
    { file: string; imports?: string[]; isEntry?: boolean }
  >;
  const entry = Object.values(manifest).find((chunk) => chunk.isEntry)!;
  const files = [entry.file, ...(entry.imports ?? []).map((key) => defined(manifest[key], "manifest[key]").file)];
  const gzipped = files.reduce((sum, file) => sum + zlib.gzipSync(fs.readFileSync(path.join(dir, file)), { level: 9 }).length, 0);
  expect(gzipped).toBeGreaterThan(1000);
  expect(gzipped).toBeLessThanOrEqual(100 * 1024);
});
