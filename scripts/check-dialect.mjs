#!/usr/bin/env node
// Only src/db/dialect.ts, src/db/connect.ts (and its SQLite drivers, src/db/sqlite*.ts) and src/db/backup.ts (dump and restore) may know which SQL engine runs underneath
// (STYLE.md habit 8). Fails when any other source file names one. The code-block highlighter
// names SQL languages ("postgresql" code fences), which is not engine code: it is exempt.
import fs from "node:fs";
import path from "node:path";

const allowed = new Set([
  "src/db/dialect.ts",
  "src/db/connect.ts",
  "src/db/sqliteConnection.ts",
  "src/db/sqliteProtocol.ts",
  "src/db/sqliteThreads.ts",
  "src/db/sqliteWorker.ts",
  "src/db/sqliteWalSync.ts",
  "src/db/backup.ts",
  "src/config.ts",
  "src/lib/markdown/highlight.ts",
]);
const offenders = [];
function walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(file);
    else if (file.endsWith(".ts") && !file.endsWith(".test.ts") && !allowed.has(file)) {
      fs.readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (/\b(sqlite|postgres(ql)?)\b/i.test(line) && !/^\s*(\/\/|\*|\/\*\*)/.test(line)) offenders.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
  }
}
walk("src");
if (offenders.length > 0) {
  console.error("Dialect-specific code outside src/db/dialect.ts:\n" + offenders.join("\n"));
  process.exit(1);
}
console.log("dialect check: ok");
