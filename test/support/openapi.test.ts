import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { committedEventViolations } from "./eventSchemas.js";
import { validateEvent, validateResponse } from "./openapi.js";

/** Response examples of the reference (test/fixtures, from scripts/generate-test-fixtures.mjs). */
const examples: { path: string; method: string; status: string; example: unknown }[] = JSON.parse(
  fs.readFileSync(new URL("../fixtures/zulip-openapi-examples.json", import.meta.url), "utf8"),
);

function exampleOf(template: string, method: string, status = "200"): any {
  const found = examples.find((e) => e.path === template && e.method === method && e.status === status);
  if (!found) throw new Error(`no example for ${method} ${template} ${status} in test/fixtures/zulip-openapi-examples.json`);
  return structuredClone(found.example);
}

const apiKeyResponse = { result: "success", msg: "", api_key: "gjA04ZYcqXKalvYMA8OeXSfzUOLrtbZv", email: "iago@zulip.com", user_id: 5 };

describe("validateResponse", () => {
  it("accepts a correct response and Zulip's own examples", () => {
    expect(() => validateResponse("POST", "/api/v1/fetch_api_key", 200, apiKeyResponse)).not.toThrow();
    expect(() => validateResponse("GET", "/api/v1/users/12", 200, exampleOf("/users/{user_id}", "get"))).not.toThrow();
    expect(() => validateResponse("GET", "/api/v1/users/me", 200, exampleOf("/users/me", "get"))).not.toThrow();
  });

  it("accepts ignored_parameters_unsupported on a success response", () => {
    const body = { ...apiKeyResponse, ignored_parameters_unsupported: ["foo", "bar"] };
    expect(() => validateResponse("POST", "/api/v1/fetch_api_key", 200, body)).not.toThrow();
  });

  it("rejects a field of the wrong type", () => {
    expect(() => validateResponse("POST", "/api/v1/fetch_api_key", 200, { ...apiKeyResponse, user_id: "5" })).toThrow(/user_id must be integer/);
  });

  it("rejects a missing required field", () => {
    const { api_key: _, ...body } = apiKeyResponse;
    expect(() => validateResponse("POST", "/api/v1/fetch_api_key", 200, body)).toThrow(/must have required property 'api_key'/);
  });

  it("rejects an extra field where additionalProperties is false, inside allOf", () => {
    expect(() => validateResponse("POST", "/api/v1/fetch_api_key", 200, { ...apiKeyResponse, surprise: 1 })).toThrow(
      /must NOT have additional properties.*surprise/,
    );
    const user = exampleOf("/users/{user_id}", "get");
    user.user.surprise = true;
    expect(() => validateResponse("GET", "/api/v1/users/12", 200, user)).toThrow(/\/user must NOT have additional properties/);
  });

  it("honours nullable: true and nothing else", () => {
    const user = exampleOf("/users/{user_id}", "get");
    user.user.avatar_url = null;
    expect(() => validateResponse("GET", "/api/v1/users/12", 200, user)).not.toThrow();
    user.user.email = null;
    expect(() => validateResponse("GET", "/api/v1/users/12", 200, user)).toThrow(/\/user\/email must be string/);
  });

  it("prefers a literal path over a template: /users/me is not /users/{user_id}", () => {
    // /users/me's fields are top-level; /users/{user_id} nests them under `user`.
    expect(() => validateResponse("GET", "/api/v1/users/12", 200, exampleOf("/users/me", "get"))).toThrow(/additionalProperty.*full_name/);
  });

  it("skips paths and methods the reference does not describe", () => {
    expect(() => validateResponse("GET", "/api/v1/parley_only_thing", 200, { anything: 1 })).not.toThrow();
    expect(() => validateResponse("PUT", "/api/v1/fetch_api_key", 200, { anything: 1 })).not.toThrow();
  });

  it("rejects a success status the operation does not document", () => {
    expect(() => validateResponse("POST", "/api/v1/fetch_api_key", 201, apiKeyResponse)).toThrow(/status 201 is not documented/);
  });

  it("accepts documented and generic Zulip error envelopes for 4xx", () => {
    const missing = { result: "error", msg: "Missing 'password' argument", code: "REQUEST_VARIABLE_MISSING", var_name: "password" };
    expect(() => validateResponse("POST", "/api/v1/fetch_api_key", 400, missing)).not.toThrow();
    const rateLimited = { result: "error", msg: "API usage exceeded rate limit", code: "RATE_LIMIT_HIT", "retry-after": 28.7 };
    expect(() => validateResponse("GET", "/api/v1/users/me", 429, rateLimited)).not.toThrow();
  });

  it("rejects a 4xx body that is not a Zulip error envelope", () => {
    expect(() => validateResponse("POST", "/api/v1/fetch_api_key", 401, { result: "error", msg: "Nope" })).toThrow(/required property 'code'/);
    expect(() => validateResponse("GET", "/api/v1/users/me", 404, "Not Found")).toThrow(/not a Zulip error envelope/);
  });
});

describe("committed events against GET /events (useTestServer checks every one after each test)", () => {
  it("accepts a matching event and rejects one of a shape or type the reference does not describe", () => {
    expect(committedEventViolations({ type: "default_streams", default_streams: [1, 3] })).toEqual([]);
    // Before feature level 330 the event carried channel objects; Parley once sent those.
    // Forms: a modern and a legacy client in our spec's names, and a modern Zulip client.
    const [modern, legacy, zulip] = committedEventViolations({ type: "default_streams", default_streams: [{ stream_id: 1, name: "Verona" }] });
    expect(modern).toMatch(/default_streams\/0 must be integer/);
    expect(legacy).toBe(modern);
    expect(zulip).toBe(modern);
    expect(committedEventViolations({ type: "parley_only_event", op: "add" })).toEqual(
      Array(3).fill(expect.stringMatching(/describes no event of type "parley_only_event"/)),
    );
    // The :zulip: emoji: our spec's name passes for other clients; Zulip's clients get Zulip's name.
    const reaction = {
      type: "reaction",
      op: "add",
      user_id: 1,
      user: { user_id: 1, email: "a@b.c", full_name: "A" },
      message_id: 1,
      emoji_name: "zulip",
      emoji_code: "zulip",
      reaction_type: "service_extra_emoji",
    };
    expect(committedEventViolations(reaction)).toEqual([]);
  });

  it("checks the forms clients receive, legacy ones included", () => {
    const event = { type: "stream", op: "update", stream_id: 1, name: "Verona", property: "is_archived", value: true };
    expect(committedEventViolations(event)).toEqual([]);
    // A client without archived_channels gets it as a stream delete: both forms are checked.
    const violations = committedEventViolations({ ...event, stream_id: "1" });
    expect(violations).toHaveLength(3);
    expect(violations[1]).toMatch(/"op":"delete"/);
    expect(() => validateEvent({ type: "stream", op: "delete", streams: [{ stream_id: 1 }], stream_ids: [1], id: 0 })).not.toThrow();
  });
});
