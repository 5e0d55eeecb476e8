import { describe, expect, it } from "vitest";
import * as z from "zod";
import { parseParams } from "./endpoint.js";
import { ApiError } from "../lib/errors.js";
import { p } from "./params.js";

/** The ApiError thrown by parsing `input` against `spec`, as the client would see it. */
function errorOf(spec: Parameters<typeof parseParams>[0], input: Record<string, string>) {
  try {
    parseParams(spec, input);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, msg: error.message, code: error.code, ...error.data };
  }
  throw new Error("expected an ApiError");
}

describe("parseParams", () => {
  it("parses declared parameters and lists the others, sorted, as ignored", () => {
    const spec = { name: p.string(), count: p.int().default(3), flag: p.bool().optional() };
    const { values, ignored } = parseParams(spec, { name: "  Ann ", zeta: "1", alpha: "2" });
    expect(values).toEqual({ name: "Ann", count: 3, flag: undefined });
    expect(ignored).toEqual(["alpha", "zeta"]);
  });

  it("rejects a missing required parameter with REQUEST_VARIABLE_MISSING and var_name", () => {
    expect(errorOf({ x: p.string() }, {})).toEqual({
      status: 400,
      msg: "Missing 'x' argument",
      code: "REQUEST_VARIABLE_MISSING",
      var_name: "x",
    });
  });

  it("accepts an alias, and rejects a parameter sent under two names with REQUEST_CONFUSING_VAR", () => {
    const spec = { topic: p.string().alias("subject") };
    expect(parseParams(spec, { subject: "lunch" }).values.topic).toBe("lunch");
    expect(parseParams(spec, { subject: "lunch" }).ignored).toEqual([]);
    expect(errorOf(spec, { topic: "a", subject: "b" })).toEqual({
      status: 400,
      msg: "Can't decide between 'topic' and 'subject' arguments",
      code: "REQUEST_CONFUSING_VAR",
      var_name1: "topic",
      var_name2: "subject",
    });
  });

  it("rejects NUL bytes in text", () => {
    expect(errorOf({ name: p.string() }, { name: "a\u0000b" })).toMatchObject({ code: "BAD_REQUEST", msg: "name contains NULL (0x00) characters." });
    expect(errorOf({ to: p.textOrJson() }, { to: "a\u0000" })).toMatchObject({ msg: "to contains NULL (0x00) characters." });
  });
});

describe("p.bool", () => {
  it("takes only the JSON literals true and false", () => {
    expect(parseParams({ b: p.bool() }, { b: "true" }).values.b).toBe(true);
    expect(parseParams({ b: p.bool() }, { b: "false" }).values.b).toBe(false);
    expect(errorOf({ b: p.bool() }, { b: "1" })).toMatchObject({ msg: "b is not a boolean" });
    expect(errorOf({ b: p.bool() }, { b: '"true"' })).toMatchObject({ msg: "b is not a boolean" });
    expect(errorOf({ b: p.bool() }, { b: "yes" })).toMatchObject({ msg: "b is not valid JSON" });
  });
});

describe("p.int and p.enum", () => {
  it("takes JSON integers only", () => {
    expect(parseParams({ n: p.int() }, { n: "42" }).values.n).toBe(42);
    expect(errorOf({ n: p.int() }, { n: "4.5" })).toMatchObject({ msg: "n is not an integer" });
    expect(errorOf({ n: p.int() }, { n: '"4"' })).toMatchObject({ msg: "n is not an integer" });
    expect(errorOf({ n: p.int() }, { n: "1e400" })).toMatchObject({ msg: "n is not an integer" });
    expect(errorOf({ n: p.int() }, { n: "abc" })).toMatchObject({ msg: "n is not valid JSON" });
    expect(errorOf({ n: p.int({ min: 1 }) }, { n: "0" })).toMatchObject({ msg: "n is too small" });
  });

  it("rejects a value outside the enum with Invalid {name}", () => {
    expect(errorOf({ op: p.enum(["add", "remove"]) }, { op: "drop" })).toMatchObject({ msg: "Invalid op" });
    expect(errorOf({ level: p.intEnum([1, 2]) }, { level: "3" })).toMatchObject({ msg: "Invalid level" });
  });
});

describe("p.json", () => {
  const ids = p.json(z.array(z.int()));

  it("parses lists and objects sent as JSON inside a field", () => {
    expect(parseParams({ ids }, { ids: "[1, 2, 3]" }).values.ids).toEqual([1, 2, 3]);
    const data = p.json(z.object({ id: z.int(), value: z.string() }).strict());
    expect(parseParams({ data }, { data: '{"id": 1, "value": "x"}' }).values.data).toEqual({ id: 1, value: "x" });
  });

  it("names the offending element in nested errors", () => {
    expect(errorOf({ ids }, { ids: '["a"]' })).toMatchObject({ msg: "ids[0] is not an integer" });
    expect(errorOf({ ids }, { ids: "[1, 2.5]" })).toMatchObject({ msg: "ids[1] is not an integer" });
    expect(errorOf({ ids }, { ids: '{"a": 1}' })).toMatchObject({ msg: "ids is not a list" });
    const data = p.json(z.object({ id: z.int() }).strict());
    expect(errorOf({ data }, { data: '{"id": "x"}' })).toMatchObject({ msg: 'data["id"] is not an integer' });
    expect(errorOf({ data }, { data: '{"id": 1, "b": 2}' })).toMatchObject({ msg: 'Argument "b" at data is unexpected' });
    expect(errorOf({ f: p.json(z.array(z.number())) }, { f: '["x"]' })).toMatchObject({ msg: "f[0] is not a float" });
    expect(errorOf({ g: p.json(z.array(z.number().int())) }, { g: '["x"]' })).toMatchObject({ msg: "g[0] is not an integer" });
  });

  it("rejects values outside a literal set with Invalid {name}", () => {
    const how = p.json(z.enum(["a", "b"]));
    expect(errorOf({ how }, { how: '"c"' })).toMatchObject({ msg: "Invalid how" });
  });

  it("rejects text that is not JSON", () => {
    expect(errorOf({ ids }, { ids: "[" })).toMatchObject({ msg: "ids is not valid JSON", code: "BAD_REQUEST" });
  });
});
