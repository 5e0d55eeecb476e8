import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import ajvFormats from "ajv-formats";
import { at } from "./at.js";

/**
 * Validates Parley's responses against Zulip's reference OpenAPI file (its checked-in reduction,
 * test/fixtures/zulip-openapi.json, made by scripts/generate-test-fixtures.mjs), as Zulip's own test suite
 * does (zerver/openapi/openapi.py): `$ref`s resolved, `allOf` parts merged naively into one
 * object schema (Zulip writes `allOf: [Base, {additionalProperties: false, properties: {x: {}}}]`,
 * which a plain JSON Schema validator would reject), then OpenAPI 3.0's `nullable` rewritten
 * for Ajv. Paths the reference does not describe are skipped; a described response that does
 * not match throws.
 */

type Schema = Record<string, any>;

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const OPENAPI_FILE = path.join(repoRoot, "test/fixtures/zulip-openapi.json");
const METHODS = ["get", "post", "put", "patch", "delete"] as const;

interface Operation {
  template: string;
  method: string;
  pattern: RegExp;
  literalSegments: number;
  responses: Record<string, Schema>;
}

interface Spec {
  operations: Operation[];
  /** GET /events' event schemas, by event type. */
  eventSchemas: Map<string, Schema[]>;
  /** Any Zulip error envelope: result "error", a msg and a code, maybe more fields. */
  genericError: Schema;
  ajv: Ajv;
  compiled: WeakMap<Schema, ValidateFunction>;
}

/**
 * The client dialect a response is checked in (src/lib/clientDialect.ts): Zulip's own clients
 * get Zulip's strict enums; other clients may also get the names our API spec uses.
 */
export type ValidationDialect = "zulip" | "spec";
const specs = new Map<ValidationDialect, Spec>();
let parsedDocument: Schema | undefined;

function loadSpec(dialect: ValidationDialect): Spec {
  const loaded = specs.get(dialect);
  if (loaded) return loaded;
  // The file is parsed once; each dialect overrides its own copy.
  parsedDocument ??= JSON.parse(fs.readFileSync(OPENAPI_FILE, "utf8")) as Schema;
  const document = structuredClone(parsedDocument);
  applySeedSpecOverrides(document, dialect);
  const resolved = mergeAllOf(resolveRefs(document, document, new Map(), [])) as Schema;
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries<Schema>(resolved.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      operations.push({ template, method, ...compileTemplate(template), responses: op.responses ?? {} });
    }
  }
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  ajvFormats.default(ajv);
  ajv.addFormat("binary", true);
  const codedErrorBase = resolved.components.schemas.CodedErrorBase;
  const spec = { operations, eventSchemas: eventSchemasByType(resolved), genericError: toAjvSchema(codedErrorBase), ajv, compiled: new WeakMap() };
  specs.set(dialect, spec);
  return spec;
}

/**
 * Where our API spec (api-spec.md) states something Zulip's OpenAPI contradicts, the spec wins;
 * the schema is widened here so responses are checked against what we promise:
 * - reaction_type of Zulip's built-in extra emoji is "service_extra_emoji" (Zulip: "zulip_extra_emoji"),
 *   for clients other than Zulip's own (the "spec" dialect; Zulip's clients get Zulip's enum).
 * And where Zulip's server sends a field its OpenAPI omits, which our spec requires:
 * - `local_message_id` on the message event delivered to the queue the message was sent from.
 */
function applySeedSpecOverrides(node: unknown, dialect: ValidationDialect): void {
  if (Array.isArray(node)) {
    for (const item of node) applySeedSpecOverrides(item, dialect);
    return;
  }
  if (!isPlainObject(node)) return;
  if (dialect === "spec" && Array.isArray(node.enum) && node.enum.includes("zulip_extra_emoji")) node.enum = [...node.enum, "service_extra_emoji"];
  const properties = node.properties as Record<string, Schema> | undefined;
  if (properties && eventTypeOf(node) === "message" && properties.message) {
    properties.local_message_id = { type: "string" };
  }
  // Zulip sends `value: null` when a channel's message_retention_days returns to the organization's
  // default (do_change_stream_message_retention_days); the file's stream update `value` omits null.
  if (properties?.value && eventTypeOf(node) === "stream" && properties.op?.enum?.includes("update")) {
    properties.value = { ...properties.value, nullable: true };
  }
  // The simplified_presence_events capability (named by our issue, from Zulip 11) has the modern
  // presence event, which the 10.2 file does not know: {type: "presence", id, presences}.
  if (Array.isArray(node.oneOf) && node.oneOf.some((s) => eventTypeOf(s) === "presence")) {
    node.oneOf = [
      ...node.oneOf,
      {
        type: "object",
        description: "Modern presence event (simplified_presence_events).",
        properties: {
          id: { type: "integer" },
          type: { type: "string", enum: ["presence"] },
          presences: {
            type: "object",
            additionalProperties: {
              type: "object",
              properties: { active_timestamp: { type: "integer" }, idle_timestamp: { type: "integer" } },
              required: ["active_timestamp", "idle_timestamp"],
              additionalProperties: false,
            },
          },
        },
        required: ["id", "type", "presences"],
        additionalProperties: false,
      },
    ];
  }
  for (const value of Object.values(node)) applySeedSpecOverrides(value, dialect);
}

/**
 * The event type an event schema of GET /events describes: its `type` property is written
 * `allOf: [{$ref: EventTypeSchema}, {enum: [the type]}]` (before $refs are resolved).
 */
function eventTypeOf(schema: unknown): string | undefined {
  if (!isPlainObject(schema) || !isPlainObject(schema.properties)) return undefined;
  const parts = (schema.properties as Schema).type?.allOf;
  if (!Array.isArray(parts)) return undefined;
  const values = parts.find((part) => Array.isArray(part?.enum))?.enum;
  return Array.isArray(values) && values.length === 1 ? values[0] : undefined;
}

/** Replaces every `$ref` by the (shared) object it points to. */
function resolveRefs(node: unknown, document: Schema, done: Map<string, unknown>, resolving: string[]): unknown {
  if (Array.isArray(node)) return node.map((item) => resolveRefs(item, document, done, resolving));
  if (node === null || typeof node !== "object") return node;
  const ref = (node as Schema).$ref;
  if (typeof ref === "string") {
    if (done.has(ref)) return done.get(ref);
    if (resolving.includes(ref)) throw new Error(`recursive $ref ${ref} in the OpenAPI file`);
    const target = ref
      .replace(/^#\//, "")
      .split("/")
      .reduce<any>((at, key) => at?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], document);
    if (target === undefined) throw new Error(`unresolvable $ref ${ref}`);
    const value = resolveRefs(target, document, done, [...resolving, ref]);
    done.set(ref, value);
    return value;
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) out[key] = resolveRefs(value, document, done, resolving);
  return out;
}

/**
 * Zulip's `naively_merge_allOf`: each allOf part is merged into the enclosing object; lists are
 * concatenated, objects merged recursively, and a scalar already present is kept.
 */
function mergeAllOf(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(mergeAllOf);
  if (node === null || typeof node !== "object") return node;
  const { allOf, ...rest } = node as Schema;
  const own: Schema = {};
  for (const [key, value] of Object.entries(rest)) own[key] = mergeAllOf(value);
  if (!Array.isArray(allOf)) return own;
  return allOf.reduce<Schema>((merged, part) => naiveMerge(merged, mergeAllOf(part) as Schema), own);
}

function naiveMerge(a: Schema, b: Schema): Schema {
  const out: Schema = { ...a };
  for (const [key, bValue] of Object.entries(b)) {
    const aValue = out[key];
    if (key === "example" || !(key in out)) out[key] = bValue;
    else if (Array.isArray(bValue) && Array.isArray(aValue)) out[key] = [...aValue, ...bValue];
    else if (isPlainObject(bValue) && isPlainObject(aValue)) out[key] = naiveMerge(aValue, bValue);
  }
  return out;
}

function isPlainObject(value: unknown): value is Schema {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

const SCHEMA_MAPS = ["properties", "patternProperties"];
const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf"];
const SCHEMA_VALUES = ["items", "additionalProperties", "not"];
const IGNORED_KEYWORDS = new Set([
  "example",
  "examples",
  "description",
  "deprecated",
  "discriminator",
  "xml",
  "externalDocs",
  "readOnly",
  "writeOnly",
  "nullable",
]);

/** OpenAPI 3.0 schema → JSON Schema for Ajv: `nullable` becomes `anyOf [..., null]`, doc keywords dropped. */
function toAjvSchema(schema: Schema, memo = new Map<Schema, Schema>()): Schema {
  const cached = memo.get(schema);
  if (cached) return cached;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (IGNORED_KEYWORDS.has(key) || key.startsWith("x-")) continue;
    if (SCHEMA_MAPS.includes(key)) {
      out[key] = Object.fromEntries(Object.entries<Schema>(value).map(([name, sub]) => [name, toAjvSchema(sub, memo)]));
    } else if (SCHEMA_LISTS.includes(key)) {
      out[key] = (value as Schema[]).map((sub) => toAjvSchema(sub, memo));
    } else if (key === "required" && Array.isArray(value)) {
      out[key] = [...new Set(value)]; // merged allOf parts may repeat a name
    } else if (SCHEMA_VALUES.includes(key) && isPlainObject(value)) {
      out[key] = toAjvSchema(value, memo);
    } else {
      out[key] = value;
    }
  }
  const result = schema.nullable === true ? { anyOf: [out, { type: "null" }] } : out;
  memo.set(schema, result);
  return result;
}

/** GET /events' event schemas (after $refs and allOf are resolved), by their `type`. */
function eventSchemasByType(resolved: Schema): Map<string, Schema[]> {
  const response = resolved.paths["/events"].get.responses["200"].content["application/json"].schema;
  const out = new Map<string, Schema[]>();
  for (const schema of response.properties.events.items.oneOf as Schema[]) {
    const type = schema.properties?.type?.enum;
    if (!Array.isArray(type) || type.length !== 1) throw new Error("an event schema of GET /events names no single type");
    out.set(type[0], [...(out.get(type[0]) ?? []), schema]);
  }
  return out;
}

/** The event types the reference's GET /events response describes (one schema or more each). */
export function referenceEventTypes(): Set<string> {
  return new Set(loadSpec("spec").eventSchemas.keys());
}

/**
 * Throws unless `event` (as a client receives it from GET /events, `id` included) matches one of
 * the reference's schemas for its type; an event type the reference does not describe throws too.
 */
export function validateEvent(event: { type: string; [key: string]: unknown }, dialect: ValidationDialect = "spec"): void {
  const candidates = loadSpec(dialect).eventSchemas.get(event.type);
  if (!candidates)
    throw new Error(`OpenAPI: GET /events describes no event of type ${JSON.stringify(event.type)}\nevent: ${JSON.stringify(event).slice(0, 2000)}`);
  const failures: Array<{ sameOp: boolean; errors: string }> = [];
  for (const schema of candidates) {
    const validate = validator(schema, dialect);
    if (validate(event as unknown)) return;
    const ops = schema.properties?.op?.enum;
    failures.push({ sameOp: Array.isArray(ops) && ops.includes(event.op), errors: formatErrors(validate.errors) });
  }
  // The schema of the same `op` explains best; else the one with the fewest complaints.
  const closest = at(
    failures.sort((a, b) => Number(b.sameOp) - Number(a.sameOp) || a.errors.split("\n").length - b.errors.split("\n").length),
    0,
  );
  throw new Error(
    `OpenAPI: event does not match the reference's ${event.type} event schemas (closest of ${candidates.length}):\n${closest.errors}\nevent: ${JSON.stringify(event).slice(0, 2000)}`,
  );
}

/** `/users/{user_id}` → a RegExp over the decoded path below /api/v1. */
function compileTemplate(template: string): { pattern: RegExp; literalSegments: number } {
  let literalSegments = 0;
  const parts = template.split("/").map((segment) => {
    const param = /^\{(.+)\}$/.exec(segment)?.[1];
    if (param === undefined) {
      literalSegments += 1;
      return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    }
    if (param === "filename") return ".+"; // /user_uploads/{realm_id_str}/{filename} spans segments
    if (/_id_or_email$/.test(param)) return "[^/]+";
    if (/(^|_)id$/.test(param)) return "-?[0-9]+";
    if (/email$/.test(param)) return "[^/]*@[^/]*";
    return "[^/]+";
  });
  return { pattern: new RegExp(`^${parts.join("/")}$`), literalSegments };
}

function findOperation(method: string, pathname: string, dialect: ValidationDialect): Operation | undefined {
  const relative = safeDecode(pathname.replace(/^\/api\/v1(?=\/)/, "").replace(/\/+$/, ""));
  const lower = method.toLowerCase();
  return loadSpec(dialect)
    .operations.filter((op) => op.method === lower && op.pattern.test(relative))
    .sort((a, b) => b.literalSegments - a.literalSegments)[0];
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function jsonSchemaOf(response: Schema | undefined): Schema | undefined {
  return response?.content?.["application/json"]?.schema;
}

function validator(schema: Schema, dialect: ValidationDialect): ValidateFunction {
  const s = loadSpec(dialect);
  let fn = s.compiled.get(schema);
  if (!fn) {
    fn = s.ajv.compile(toAjvSchema(schema));
    s.compiled.set(schema, fn);
  }
  return fn;
}

function formatErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 20)
    .map((e) => `  ${e.instancePath || "(root)"} ${e.message}${e.params && Object.keys(e.params).length ? " " + JSON.stringify(e.params) : ""}`)
    .join("\n");
}

/**
 * Throws when `body` does not match the reference schema for (method, path, status). Responses
 * of paths or methods the reference does not describe, and non-JSON responses, pass unchecked.
 * A 4xx/5xx body must match the documented error schema or at least Zulip's error envelope
 * (`result: "error"`, `msg`, `code`), since the reference documents only typical errors.
 */
export function validateResponse(method: string, pathname: string, status: number, body: unknown, dialect: ValidationDialect = "spec"): void {
  const op = findOperation(method, pathname, dialect);
  if (!op) return;
  const documented = op.responses[String(status)] ?? op.responses.default;
  const where = `${method.toUpperCase()} ${pathname} (${op.method.toUpperCase()} ${op.template}) → ${status}`;
  if (status >= 400) {
    const schema = jsonSchemaOf(documented);
    if (schema && validator(schema, dialect)(body)) return;
    const generic = validator(loadSpec(dialect).genericError, dialect);
    if (generic(body)) return;
    throw new Error(`OpenAPI: error response is not a Zulip error envelope at ${where}:\n${formatErrors(generic.errors)}\nbody: ${JSON.stringify(body)}`);
  }
  if (documented === undefined) {
    throw new Error(`OpenAPI: status ${status} is not documented for ${where}\nbody: ${JSON.stringify(body)}`);
  }
  const schema = jsonSchemaOf(documented);
  if (!schema) return;
  const validate = validator(schema, dialect);
  if (!validate(body)) {
    throw new Error(
      `OpenAPI: response does not match the reference schema at ${where}:\n${formatErrors(validate.errors)}\nbody: ${JSON.stringify(body).slice(0, 4000)}`,
    );
  }
}
