import { expect, it } from "vitest";
import type { WebhookHarness } from "./support.js";

/** One `it`: the payload is refused with `status` and Zulip's `msg`, and nothing is posted. */
export function itRejects(
  h: WebhookHarness,
  integration: string,
  c: { name: string; payload: unknown; msg: string; status?: number; headers?: Record<string, string>; contentType?: string },
): void {
  it(c.name, async () => {
    const before = (await h.newest())?.id ?? 0;
    const res = await h.post(integration, c.payload, { headers: c.headers, contentType: c.contentType });
    expect(res.status).toBe(c.status ?? 400);
    expect(res.body).toMatchObject({ result: "error", msg: c.msg });
    expect(await h.since(before)).toEqual([]);
  });
}
