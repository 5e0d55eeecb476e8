#!/usr/bin/env node
// Builds src/lib/emojiTable.json from Zulip's emoji name table
// (test/fixtures/zulip-emoji-names.json, copied from Zulip's reference files by
// scripts/generate-test-fixtures.mjs: code point(s) -> canonical name and aliases).
// Usage: node scripts/generate-emoji-table.mjs [reference.json] [output.json]
// The test test/markdown/emojiTable.test.ts calls buildEmojiTable() and fails when the
// committed table differs, so neither the server nor the tests read anything outside the repository.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const defaultReference = path.join(root, "test/fixtures/zulip-emoji-names.json");
export const defaultOutput = path.join(root, "src/lib/emojiTable.json");

/** Zulip's own emoji, outside Unicode (zerver/lib/emoji.py: "zulip", reaction_type zulip_extra_emoji). */
const EXTRA_EMOJI = { zulip: "zulip" };

/** reference: { "<code>": { canonical_name, aliases } } -> { nameToCode, codeToName, extra } */
export function buildEmojiTable(reference) {
  const codes = Object.keys(reference).sort();
  const nameToCode = {};
  const codeToName = {};
  for (const code of codes) {
    const { canonical_name: canonical, aliases } = reference[code];
    codeToName[code] = canonical;
    for (const name of [canonical, ...aliases]) {
      if (name in nameToCode) throw new Error(`emoji name ${name} is used twice`);
      nameToCode[name] = code;
    }
  }
  return { nameToCode: sortKeys(nameToCode), codeToName, extra: EXTRA_EMOJI };
}

function sortKeys(object) {
  return Object.fromEntries(Object.entries(object).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The exact file contents: one entry per line keeps diffs readable. */
export function serializeEmojiTable(table) {
  const section = (object) =>
    "{\n" +
    Object.entries(object)
      .map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)}`)
      .join(",\n") +
    "\n  }";
  return `{\n  "nameToCode": ${section(table.nameToCode)},\n  "codeToName": ${section(table.codeToName)},\n  "extra": ${section(table.extra)}\n}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const input = process.argv[2] ?? defaultReference;
  const output = process.argv[3] ?? defaultOutput;
  const table = buildEmojiTable(JSON.parse(fs.readFileSync(input, "utf8")));
  fs.writeFileSync(output, serializeEmojiTable(table));
  console.log(`wrote ${output}: ${Object.keys(table.nameToCode).length} names, ${Object.keys(table.codeToName).length} code points`);
}
