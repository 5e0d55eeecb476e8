#!/usr/bin/env node
// Writes docs/integrations.md from src/integrations/registry.ts (the table of every incoming
// webhook integration and how to add one; the text is src/integrations/docs.ts's).
// Usage: node scripts/integrations-doc.mjs [--check]
// --check (run by `npm run check`) exits non-zero when the file differs from what the registry gives.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { tsImport } from "tsx/esm/api";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const target = path.join(root, "docs/integrations.md");
const { integrationsMarkdown } = await tsImport("../src/integrations/docs.ts", import.meta.url);
const text = integrationsMarkdown();

if (process.argv.includes("--check")) {
  const current = fs.existsSync(target) ? fs.readFileSync(target, "utf8") : "";
  if (current !== text) {
    console.error("docs/integrations.md is out of date with src/integrations/registry.ts: run `npm run integrations-doc`.");
    process.exit(1);
  }
  console.log("docs/integrations.md is up to date.");
} else {
  fs.writeFileSync(target, text);
  console.log(`wrote docs/integrations.md`);
}
