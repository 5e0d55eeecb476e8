#!/usr/bin/env node
// Writes docs/integrations.md from src/integrations/registry.ts (the table of every incoming
// webhook integration and how to add one; the text is src/integrations/docs.ts's), and
// src/integrations/catalog.json, what /register lists of them (src/integrations/catalog.ts).
// Usage: node scripts/integrations-doc.mjs [--check]
// --check (run by `npm run check`) exits non-zero when a file differs from what the registry gives.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { tsImport } from "tsx/esm/api";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { integrationsMarkdown } = await tsImport("../src/integrations/docs.ts", import.meta.url);
const { INTEGRATIONS } = await tsImport("../src/integrations/registry.ts", import.meta.url);
const { incomingWebhookBot } = await tsImport("../src/integrations/catalog.ts", import.meta.url);
const files = {
  "docs/integrations.md": integrationsMarkdown(),
  "src/integrations/catalog.json": `${JSON.stringify(INTEGRATIONS.map(incomingWebhookBot), null, 2)}\n`,
};

let stale = false;
for (const [name, text] of Object.entries(files)) {
  const target = path.join(root, name);
  if (process.argv.includes("--check")) {
    const current = fs.existsSync(target) ? fs.readFileSync(target, "utf8") : "";
    if (current !== text) {
      console.error(`${name} is out of date with src/integrations/registry.ts: run \`npm run integrations-doc\`.`);
      stale = true;
    } else console.log(`${name} is up to date.`);
  } else {
    fs.writeFileSync(target, text);
    console.log(`wrote ${name}`);
  }
}
if (stale) process.exit(1);
