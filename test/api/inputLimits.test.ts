import { describe, expect, it } from "vitest";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

/**
 * Abusive input is refused quickly with a 400, never a 500, and never holds the server up for
 * other users (issue 17: huge narrows, NUL bytes in narrow operands, deep JSON, long lists).
 */
const t = useTestServer();

const searchTerms = (count: number, word = "hello") => Array.from({ length: count }, (_, i) => ({ operator: "search", operand: `${word}${i}` }));

/** How long (ms) another user's request takes while `abuse` runs. */
async function latencyDuring(abuse: () => Promise<unknown>): Promise<{ latency: number; abused: unknown }> {
  const running = abuse();
  // Let the abusive request reach the server before measuring.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const start = performance.now();
  expectSuccess(await t.get("othello", "/api/v1/users/me"));
  const latency = performance.now() - start;
  return { latency, abused: await running };
}

describe("narrow bounds", () => {
  it("refuses a narrow of 20,000 search terms without holding up other users", async () => {
    const baselineStart = performance.now();
    expectSuccess(await t.get("othello", "/api/v1/users/me"));
    const baseline = performance.now() - baselineStart;
    const narrow = JSON.stringify(searchTerms(20_000));
    const { latency, abused } = await latencyDuring(() =>
      t.post("hamlet", "/api/v1/messages/flags/narrow", { anchor: "newest", num_before: 10, num_after: 0, narrow, op: "add", flag: "read" }),
    );
    const res = abused as Awaited<ReturnType<typeof t.get>>;
    expect(res.status).toBe(400);
    expect(res.body.msg).toMatch(/^narrow has too many items \(limit: \d+\)$/);
    // Below the general list limit, the narrow's own limit applies.
    const narrow200 = JSON.stringify(searchTerms(200));
    expectError(await t.post("hamlet", "/api/v1/messages/flags/narrow", { anchor: "newest", num_before: 10, num_after: 0, narrow: narrow200, op: "add", flag: "read" }), 400, "narrow has too many items (limit: 100)");
    // Generous for a loaded 2-core machine; the quadratic narrow builder took 15-30 s here.
    expect(latency).toBeLessThan(baseline + 2000);
  });

  it("answers narrows at the limits quickly", async () => {
    const words = Array.from({ length: 300 }, (_, i) => `w${i}`).join(" ").slice(0, 1000);
    const longNarrow = JSON.stringify(Array.from({ length: 100 }, () => ({ operator: "search", operand: words })));
    const dmNarrow = JSON.stringify(Array.from({ length: 100 }, () => ({ operator: "dm", operand: Array.from({ length: 1000 }, () => "othello@zulip.com") })));
    for (const narrow of [longNarrow, dmNarrow]) {
      const { latency, abused } = await latencyDuring(() =>
        t.post("hamlet", "/api/v1/messages/flags/narrow", { anchor: "newest", num_before: 1000, num_after: 0, narrow, op: "add", flag: "starred" }),
      );
      expect((abused as Awaited<ReturnType<typeof t.get>>).status).toBeLessThan(500);
      expect(latency).toBeLessThan(2000);
    }
    // GET /messages (query string: as long as an URL may be), with highlighting.
    const narrow = JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ operator: "search", operand: `w${i} x${i}` })));
    const start = performance.now();
    expectSuccess(await t.get("hamlet", "/api/v1/messages", { anchor: "newest", num_before: 1000, num_after: 0, narrow }));
    expect(performance.now() - start).toBeLessThan(5000);
  });

  it("refuses long operands and long operand lists", async () => {
    const long = JSON.stringify([{ operator: "search", operand: "x".repeat(1001) }]);
    expectError(await t.get("hamlet", "/api/v1/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow: long }), 400, 'narrow[0]["operand"] is too long (limit: 1000 characters)');
    const many = JSON.stringify([{ operator: "dm", operand: Array.from({ length: 1001 }, (_, i) => i + 1) }]);
    expectError(await t.get("hamlet", "/api/v1/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow: many }), 400, 'narrow[0]["operand"] has too many items (limit: 1000)');
  });

  it("refuses NUL bytes in narrow operands with a 400 on every operator", async () => {
    for (const operator of ["search", "topic", "sender", "channel", "dm", "is"]) {
      for (const narrow of [[{ operator, operand: "a\u0000b" }], [[operator, "a\u0000b"]], [{ operator, operand: ["a\u0000b"] }]]) {
        const res = await t.get("hamlet", "/api/v1/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow: JSON.stringify(narrow) });
        expect(res.status, `${operator} ${JSON.stringify(narrow)}`).toBe(400);
        expect(res.body.msg).toMatch(/contains NULL \(0x00\) characters\.$/);
      }
    }
    const res = await t.post("hamlet", "/api/v1/messages/flags/narrow", {
      anchor: "newest", num_before: 1, num_after: 0, op: "add", flag: "read", narrow: JSON.stringify([{ operator: "search", operand: "a\u0000" }]),
    });
    expectError(res, 400, 'narrow[0]["operand"] contains NULL (0x00) characters.');
  });
});

describe("JSON bounds", () => {
  it("refuses a JSON body nested 100,000 levels deep with a 400", async () => {
    const depth = 100_000;
    for (const body of ["[".repeat(depth) + "]".repeat(depth), `{"content":${"[".repeat(depth)}${"]".repeat(depth)}}`, `{"a":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`]) {
      const res = await fetch(t.baseUrl + "/api/v1/messages", {
        method: "POST",
        headers: { Authorization: await t.authHeader("hamlet"), "Content-Type": "application/json" },
        body,
      });
      expect(res.status).toBe(400);
      expect((await res.json()).code).toBe("BAD_REQUEST");
    }
  });

  it("refuses JSON parameters nested too deeply", async () => {
    const deep = "[".repeat(50) + "]".repeat(50);
    expectError(await t.get("hamlet", "/api/v1/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow: deep }), 400, "narrow is nested too deeply (limit: 32 levels)");
    expectError(await t.post("hamlet", "/api/v1/messages", { type: "direct", to: deep, content: "x" }), 400, "to is nested too deeply (limit: 32 levels)");
  });
});
