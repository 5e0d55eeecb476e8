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
    expectError(
      await t.post("hamlet", "/api/v1/messages/flags/narrow", { anchor: "newest", num_before: 10, num_after: 0, narrow: narrow200, op: "add", flag: "read" }),
      400,
      "narrow has too many items (limit: 100)",
    );
    // Generous for a loaded 2-core machine; the quadratic narrow builder took 15-30 s here.
    expect(latency).toBeLessThan(baseline + 2000);
  });

  it("answers narrows at the limits quickly", async () => {
    const words = Array.from({ length: 300 }, (_, i) => `w${i}`)
      .join(" ")
      .slice(0, 1000);
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
    expectError(
      await t.get("hamlet", "/api/v1/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow: long }),
      400,
      'narrow[0]["operand"] is too long (limit: 1000 characters)',
    );
    const many = JSON.stringify([{ operator: "dm", operand: Array.from({ length: 1001 }, (_, i) => i + 1) }]);
    expectError(
      await t.get("hamlet", "/api/v1/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow: many }),
      400,
      'narrow[0]["operand"] has too many items (limit: 1000)',
    );
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
      anchor: "newest",
      num_before: 1,
      num_after: 0,
      op: "add",
      flag: "read",
      narrow: JSON.stringify([{ operator: "search", operand: "a\u0000" }]),
    });
    expectError(res, 400, 'narrow[0]["operand"] contains NULL (0x00) characters.');
  });
});

describe("JSON bounds", () => {
  it("refuses a JSON body nested 100,000 levels deep with a 400", async () => {
    const depth = 100_000;
    for (const body of [
      "[".repeat(depth) + "]".repeat(depth),
      `{"content":${"[".repeat(depth)}${"]".repeat(depth)}}`,
      `{"a":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`,
    ]) {
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
    expectError(
      await t.get("hamlet", "/api/v1/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow: deep }),
      400,
      "narrow is nested too deeply (limit: 32 levels)",
    );
    expectError(await t.post("hamlet", "/api/v1/messages", { type: "direct", to: deep, content: "x" }), 400, "to is nested too deeply (limit: 32 levels)");
  });
});

describe("long lists", () => {
  const range = (n: number, from = 1) => Array.from({ length: n }, (_, i) => from + i);

  /** Each case: a request with a list of `n` entries. */
  const cases = (ids: { othello: number; hamlet: number }): Array<[string, (n: number) => Promise<Awaited<ReturnType<typeof t.get>>>]> => [
    ["DM to n user ids", (n) => t.post("hamlet", "/api/v1/messages", { type: "direct", to: JSON.stringify(Array(n).fill(ids.othello)), content: "long list" })],
    [
      "DM to n emails",
      (n) => t.post("hamlet", "/api/v1/messages", { type: "direct", to: JSON.stringify(Array(n).fill("othello@zulip.com")), content: "long list" }),
    ],
    ["typing to n users", (n) => t.post("hamlet", "/api/v1/typing", { op: "start", to: JSON.stringify(Array(n).fill(ids.othello)) })],
    ["typing to n distinct ids", (n) => t.post("hamlet", "/api/v1/typing", { op: "start", to: JSON.stringify(range(n)) })],
    [
      "principals with n entries",
      (n) =>
        t.post("iago", "/api/v1/users/me/subscriptions", {
          subscriptions: JSON.stringify([{ name: "Verona" }]),
          principals: JSON.stringify(Array(n).fill("hamlet@zulip.com")),
        }),
    ],
    [
      "principals with n distinct ids",
      (n) => t.post("iago", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "Verona" }]), principals: JSON.stringify(range(n)) }),
    ],
    [
      "unsubscribe n channel names",
      (n) => t.delete("hamlet", "/api/v1/users/me/subscriptions", { subscriptions: JSON.stringify(range(n).map((i) => `no such channel ${i}`)) }),
    ],
    [
      "group with n members",
      (n) => t.post("iago", "/api/v1/user_groups/create", { name: `big group ${n}`, description: "", members: JSON.stringify(Array(n).fill(ids.hamlet)) }),
    ],
    [
      "group with n distinct ids",
      (n) => t.post("iago", "/api/v1/user_groups/create", { name: `big group ids ${n}`, description: "", members: JSON.stringify(range(n)) }),
    ],
    ["flags on n message ids", (n) => t.post("hamlet", "/api/v1/messages/flags", { messages: JSON.stringify(range(n)), op: "add", flag: "read" })],
    ["unstar n message ids", (n) => t.post("hamlet", "/api/v1/messages/flags", { messages: JSON.stringify(range(n)), op: "remove", flag: "starred" })],
    // 3,000 new channels (not 10,000, which take long) already exceed both engines' bound-value limits in one insert.
    [
      "subscribe to n new channels",
      (n) => {
        const count = n > 10_000 ? n : 3_000;
        return t.post("iago", "/api/v1/users/me/subscriptions", {
          subscriptions: JSON.stringify(range(count).map((i) => ({ name: `new channel ${n} ${i}` }))),
        });
      },
    ],
  ];

  it("refuses lists of 100,000 entries with a 400", async () => {
    const ids = { othello: (await t.user("othello")).id, hamlet: (await t.user("hamlet")).id };
    for (const [what, send] of cases(ids)) {
      const res = await send(100_000);
      expect(res.status, what).toBe(400);
      expect(res.body.msg, what).toMatch(/has too many items \(limit: 10000\)$/);
    }
  });

  it("answers lists at the limit without a 5xx", async () => {
    const ids = { othello: (await t.user("othello")).id, hamlet: (await t.user("hamlet")).id };
    for (const [what, send] of cases(ids)) {
      const res = await send(10_000);
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
    }
  }, 120_000);
});
