import { describe, expect, it } from "vitest";
import { NATS_URL, POSTGRES_URL, soon, twoProcesses } from "./support/multiProcess.js";
import { apiCaller, useServerProcesses } from "./support/process.js";

/**
 * The linkifiers and alert words a send reads from memory (db/realmReadCache.ts), across
 * processes: a change committed through one process drops the other's copy when its event
 * arrives over the bus, well before the copy would expire (30 s).
 */
const servers = useServerProcesses();

describe.skipIf(!NATS_URL || !POSTGRES_URL)("send caches across processes", () => {
  it("a linkifier and an alert word changed through one process apply to sends through the other", async () => {
    const { a, b, owner } = await twoProcesses(servers);
    const onA = apiCaller(() => a.baseUrl, owner);
    const onB = apiCaller(() => b.baseUrl, owner);
    expect((await onA("POST", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "cache" }]) })).status).toBe(200);

    // Sent and read back through B: its rendering and the owner's flags.
    const sendOnB = async (content: string) => {
      const sent = await onB("POST", "/messages", { type: "stream", to: "cache", topic: "t", content });
      expect(sent.status).toBe(200);
      return (await onB("GET", `/messages/${sent.body.id}`)).body.message as { content: string; flags: string[] };
    };
    expect((await sendOnB("ticket T-1 and a kettle")).content).toBe("<p>ticket T-1 and a kettle</p>");

    const added = await onA("POST", "/realm/filters", { pattern: "T-(?P<id>[0-9]+)", url_template: "https://one.example/{id}" });
    expect(added.status).toBe(200);
    const linked = await soon(
      () => sendOnB("ticket T-2"),
      (m) => m.content.includes("href"),
    );
    expect(linked.content).toBe('<p>ticket <a href="https://one.example/2">T-2</a></p>');

    expect((await onA("DELETE", `/realm/filters/${added.body.id}`)).status).toBe(200);
    expect(
      (
        await soon(
          () => sendOnB("ticket T-3"),
          (m) => !m.content.includes("href"),
        )
      ).content,
    ).toBe("<p>ticket T-3</p>");

    expect((await onA("POST", "/users/me/alert_words", { alert_words: JSON.stringify(["kettle"]) })).status).toBe(200);
    expect(
      (
        await soon(
          () => sendOnB("a kettle"),
          (m) => m.flags.includes("has_alert_word"),
        )
      ).flags,
    ).toContain("has_alert_word");
    expect((await onA("DELETE", "/users/me/alert_words", { alert_words: JSON.stringify(["kettle"]) })).status).toBe(200);
    expect(
      (
        await soon(
          () => sendOnB("a kettle"),
          (m) => !m.flags.includes("has_alert_word"),
        )
      ).flags,
    ).not.toContain("has_alert_word");
  }, 120_000);
});
