import { describe, expect, it } from "vitest";
import { changesStalled, inOrder, retryChangesNow, waitingChanges } from "../../web/src/changeQueue.js";

// The web app's outgoing changes (web/src/changeQueue.ts): one at a time in the order made, sent
// again while the failure says the server did not answer, settled by its answer.

const NOT_ANSWERED = new Error("no answer");
const retryUnanswered = (ms: number) => (error: unknown) => (error === NOT_ANSWERED ? ms : null);

describe("changeQueue", () => {
  it("sends changes in order, the next only once the one before is settled, retrying those not answered", async () => {
    const log: string[] = [];
    let failuresLeft = 2;
    const first = inOrder(async (failures) => {
      log.push(`star attempt ${failures}`);
      if (failuresLeft-- > 0) throw NOT_ANSWERED;
      return "starred";
    }, retryUnanswered(5));
    const second = inOrder(async () => {
      log.push("unstar");
      return "unstarred";
    }, retryUnanswered(5));
    expect(waitingChanges.value).toBe(2);
    expect(await Promise.all([first, second])).toEqual(["starred", "unstarred"]);
    expect(log).toEqual(["star attempt 0", "star attempt 1", "star attempt 2", "unstar"]);
    expect(waitingChanges.value).toBe(0);
    expect(changesStalled.value).toBe(false);
  });

  it("settles a change with the server's refusal, and goes on with the next", async () => {
    const refused = inOrder(async () => {
      throw new Error("Invalid message(s)");
    }, retryUnanswered(5));
    const next = inOrder(async () => "done", retryUnanswered(5));
    await expect(refused).rejects.toThrow("Invalid message(s)");
    expect(await next).toBe("done");
  });

  it("retries at once when told the server answers again, instead of waiting out the backoff", async () => {
    let attempts = 0;
    const started = Date.now();
    const change = inOrder(async () => {
      if (attempts++ === 0) throw NOT_ANSWERED;
      return "sent";
    }, retryUnanswered(60_000));
    await expect.poll(() => changesStalled.value).toBe(true);
    retryChangesNow();
    expect(await change).toBe("sent");
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
