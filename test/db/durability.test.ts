import { describe, expect, it } from "vitest";
import { apiCaller, firstStartCredentials, type ServerProcess, useServerProcesses } from "../support/process.js";

// A real server process with the default durability settings (SQLite: WAL, synchronous=FULL, group
// commit) is killed with SIGKILL as soon as a burst of concurrent sends has been acknowledged:
// after a restart every acknowledged message is there.
describe("acknowledged messages across a kill -9", () => {
  const servers = useServerProcesses();

  it("are all stored after the restart", async () => {
    const env = await servers.freshEnv();
    let parley: ServerProcess = await servers.start(env);
    const api = apiCaller(() => parley.baseUrl, firstStartCredentials(parley.output()));
    const channel = await api("POST", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "durable" }]) });
    expect(channel.status).toBe(200);

    const sends = await Promise.all(
      Array.from({ length: 40 }, (_, i) => api("POST", "/messages", { type: "stream", to: "durable", topic: "burst", content: `message ${i}` })),
    );
    await parley.stop("SIGKILL");
    expect(sends.map((s) => s.status)).toEqual(Array(40).fill(200));
    const acknowledged = sends.map((s) => s.body.id as number).sort((a, b) => a - b);

    parley = await servers.start(env);
    const fetched = await api("GET", "/messages", {
      anchor: "newest", num_before: "100", num_after: "0", apply_markdown: "false",
      narrow: JSON.stringify([{ operator: "channel", operand: "durable" }, { operator: "topic", operand: "burst" }]),
    });
    expect(fetched.status).toBe(200);
    expect(fetched.body.messages.map((m: { id: number }) => m.id)).toEqual(acknowledged);
    expect(new Set(fetched.body.messages.map((m: { content: string }) => m.content)).size).toBe(40);
  }, 60_000);
});
