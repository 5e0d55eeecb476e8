#!/usr/bin/env node
// Turns what the tests need from a folder of Zulip's reference files (its OpenAPI file, Markdown
// test cases and emoji names; see --reference below) into files
// checked in under test/fixtures/, so a clone runs its suite without anything beside it:
// - zulip-openapi.json: the reference OpenAPI file reduced to what response validation reads
//   (each operation's operationId and responses, components.schemas and components.responses),
//   with prose (description, summary), examples and x- extensions dropped;
// - zulip-openapi-examples.json: the few response examples test/support/openapi.test.ts checks;
// - register-sections.json: each POST /register response key with the fetch_event_types values
//   its description names ("Present if `x` is present in `fetch_event_types`"), for
//   test/events/register.test.ts;
// - markdown_test_cases.json and zulip-emoji-names.json: copied as they are.
// Usage: node scripts/generate-test-fixtures.mjs [--check] [--reference=DIR]
// (DIR defaults to $PARLEY_REFERENCE_DIR, else ../shared/reference: the folder is not part of the
// repository, and only regenerating or checking the fixtures needs it)
// --check (run by `npm run check`) exits non-zero when a fixture differs from what the reference
// gives, and says it skipped when the reference folder is absent.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const referenceArg = process.argv.find((arg) => arg.startsWith("--reference="))?.slice("--reference=".length);
export const referenceDir = path.resolve(root, referenceArg ?? process.env.PARLEY_REFERENCE_DIR ?? "../shared/reference");
export const fixturesDir = path.join(root, "test/fixtures");
const METHODS = ["get", "post", "put", "patch", "delete"];

/** Keywords that document a schema without constraining it. */
const PROSE = new Set(["description", "summary", "example", "examples", "externalDocs"]);
/** Keys whose children are names (of properties, schemas, status codes, media types), not keywords. */
const NAME_MAPS = new Set(["properties", "patternProperties", "schemas", "responses", "content", "headers"]);

/** Response examples test/support/openapi.test.ts validates: [path, method, status]. */
const EXAMPLES = [
  ["/users/{user_id}", "get", "200"],
  ["/users/me", "get", "200"],
];

function withoutProse(node, namesHere = false) {
  if (Array.isArray(node)) return node.map((item) => withoutProse(item));
  if (node === null || typeof node !== "object") return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (!namesHere && (PROSE.has(key) || key.startsWith("x-"))) continue;
    out[key] = withoutProse(value, !namesHere && NAME_MAPS.has(key));
  }
  return out;
}

function openapiFixture(document) {
  const paths = {};
  for (const [template, item] of Object.entries(document.paths)) {
    const operations = {};
    for (const method of METHODS) {
      if (!item[method]) continue;
      const { operationId, responses } = item[method];
      operations[method] = withoutProse({ operationId, responses });
    }
    if (Object.keys(operations).length > 0) paths[template] = operations;
  }
  const { schemas, responses } = document.components;
  return { info: { version: document.info.version }, paths, components: withoutProse({ schemas, responses }, false) };
}

/** The example of a response written as `allOf: [Base, {..., example}]` or with a plain `example`. */
function responseExample(document, [template, method, status]) {
  const schema = document.paths[template][method].responses[status].content["application/json"].schema;
  const example = schema.example ?? schema.allOf?.find((part) => part.example !== undefined)?.example;
  if (example === undefined) throw new Error(`no example for ${method.toUpperCase()} ${template} ${status}`);
  return { path: template, method, status, example };
}

/** POST /register's response keys → the fetch_event_types values that ask for them (from the prose). */
function registerSections(document) {
  const schema = document.paths["/register"].post.responses["200"].content["application/json"].schema;
  const properties = {};
  const collect = (node) => {
    if (node.$ref) node = document.components.schemas[node.$ref.split("/").pop()];
    for (const part of node.allOf ?? []) collect(part);
    Object.assign(properties, node.properties ?? {});
  };
  collect(schema);
  return Object.fromEntries(
    Object.entries(properties).map(([key, property]) => [
      key,
      [...(property.description ?? "").matchAll(/Present if `(\w+)` is\s+present in\s+`fetch_event_types`/g)].map((m) => m[1]),
    ]),
  );
}

const json = (value) => JSON.stringify(value, null, 1) + "\n";

/** file name under test/fixtures → its exact contents, from the reference folder. */
export function buildFixtures(dir = referenceDir) {
  const document = parseYaml(fs.readFileSync(path.join(dir, "zulip-openapi.yaml"), "utf8"), { maxAliasCount: -1 });
  return {
    "zulip-openapi.json": json(openapiFixture(document)),
    "zulip-openapi-examples.json": json(EXAMPLES.map((key) => responseExample(document, key))),
    "register-sections.json": json(registerSections(document)),
    "markdown_test_cases.json": fs.readFileSync(path.join(dir, "markdown_test_cases.json"), "utf8"),
    "zulip-emoji-names.json": fs.readFileSync(path.join(dir, "zulip-emoji-names.json"), "utf8"),
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes("--check");
  if (!fs.existsSync(referenceDir)) {
    console.log(`test fixtures: ${referenceDir} is absent, skipped ${check ? "checking" : "generating"} test/fixtures/`);
    process.exit(0);
  }
  const fixtures = buildFixtures();
  if (check) {
    const stale = Object.entries(fixtures)
      .filter(([name, text]) => {
        const file = path.join(fixturesDir, name);
        return !fs.existsSync(file) || fs.readFileSync(file, "utf8") !== text;
      })
      .map(([name]) => name);
    if (stale.length > 0) {
      console.error(`test fixtures out of date with ${referenceDir}: ${stale.join(", ")}; run node scripts/generate-test-fixtures.mjs`);
      process.exit(1);
    }
    console.log("test fixtures: up to date with the reference");
  } else {
    fs.mkdirSync(fixturesDir, { recursive: true });
    for (const [name, text] of Object.entries(fixtures)) fs.writeFileSync(path.join(fixturesDir, name), text);
    console.log(
      `wrote ${Object.keys(fixtures)
        .map((name) => `test/fixtures/${name}`)
        .join(", ")}`,
    );
  }
}
