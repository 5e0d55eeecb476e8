#!/usr/bin/env node
// Migrations are immutable once landed: src/db/migrations.sha256 lists every landed migration file
// with the SHA-256 of its contents. `npm run check` runs this script, which fails when a listed file
// changed or disappeared, and when a migration file is not listed yet.
// Usage: node scripts/check-migrations.mjs [--add]
// --add appends the files not listed yet (a new migration, when it lands); it never rewrites a line.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dir = path.join(root, "src/db/migrations");
const listFile = path.join(root, "src/db/migrations.sha256");

const hashOf = (name) =>
  crypto
    .createHash("sha256")
    .update(fs.readFileSync(path.join(dir, name)))
    .digest("hex");

/** "<sha256>  <file name>" lines (sha256sum's format), in order. */
function readList() {
  if (!fs.existsSync(listFile)) return [];
  return fs
    .readFileSync(listFile, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const match = /^([0-9a-f]{64}) {2}(\S+)$/.exec(line);
      if (!match) throw new Error(`${path.relative(root, listFile)}: not "<sha256>  <file>": ${line}`);
      return { hash: match[1], name: match[2] };
    });
}

const listed = readList();
const files = fs
  .readdirSync(dir)
  .filter((name) => name.endsWith(".ts"))
  .sort();
const listedNames = new Set(listed.map((entry) => entry.name));
const unlisted = files.filter((name) => !listedNames.has(name));

if (process.argv.includes("--add")) {
  const lines = unlisted.map((name) => `${hashOf(name)}  ${name}\n`).join("");
  fs.appendFileSync(listFile, lines);
  console.log(unlisted.length === 0 ? "migrations: nothing to add" : `migrations: listed ${unlisted.join(", ")}`);
  process.exit(0);
}

const problems = [];
for (const { hash, name } of listed) {
  if (!files.includes(name)) problems.push(`${name} is listed but gone: a landed migration is never removed`);
  else if (hashOf(name) !== hash) problems.push(`${name} changed since it landed: add a new migration instead of editing it`);
}
for (const name of unlisted) problems.push(`${name} is not listed yet: when it lands, run node scripts/check-migrations.mjs --add`);
if (problems.length > 0) {
  console.error(`migrations (src/db/migrations.sha256):\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(`migrations: ${listed.length} landed files unchanged`);
