import net from "node:net";
import { defined } from "../../src/util/defined.js";
import { describe, expect, it } from "vitest";
import { apiCaller, firstStartCredentials, useServerProcesses } from "../support/process.js";
import { TEST_ENGINE } from "../support/testDb.js";

/**
 * PostgreSQL going away while the server runs (restart, network cut): one log line when the
 * connection is lost, one when it is back, and the server answers again by itself. The server
 * reaches PostgreSQL through a TCP proxy this test cuts and restores.
 */
const servers = useServerProcesses();

function cuttableProxy(target: { host: string; port: number }) {
  let down = false;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (down) return void client.destroy();
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      open.add(s);
      s.on("close", () => open.delete(s));
      s.on("error", () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  return {
    listen: () => new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port))),
    cut() {
      down = true;
      for (const s of open) s.destroy();
    },
    restore() {
      down = false;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(TEST_ENGINE !== "postgres")("PostgreSQL connection loss while running", () => {
  it("logs once per outage and recovers when the database is back", async () => {
    const env = await servers.freshEnv();
    const url = new URL(defined(env.PARLEY_DATABASE_URL, "PARLEY_DATABASE_URL"));
    const proxy = cuttableProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.port = String(await proxy.listen());
    servers.onCleanup(proxy.close);
    const server = await servers.start({ ...env, PARLEY_DATABASE_URL: url.toString(), PARLEY_DATABASE_TIMEOUT_SECONDS: "2", PARLEY_LOG_LEVEL: "warn" });
    const api = apiCaller(() => server.baseUrl, await firstStartCredentials(server));
    expect((await api("GET", "/users/me")).status).toBe(200);

    proxy.cut();
    for (let i = 0; i < 5; i++) {
      expect((await api("GET", "/users/me")).status).toBeGreaterThanOrEqual(500);
      expect((await fetch(`${server.baseUrl}/health`)).status).toBeGreaterThanOrEqual(500);
    }
    await new Promise((r) => setTimeout(r, 2500)); // job runner passes fail meanwhile
    proxy.restore();

    const deadline = Date.now() + 15_000;
    while ((await api("GET", "/users/me")).status !== 200) {
      if (Date.now() > deadline) throw new Error(`the server did not recover:\n${server.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const lines = server.output().split("\n");
    expect(
      lines.filter((l) => l.includes("Lost the connection to the database")),
      server.output(),
    ).toHaveLength(1);
    // Logged by the first statement that succeeds; the line reaches this process through a pipe.
    await expect
      .poll(() =>
        server
          .output()
          .split("\n")
          .filter((l) => l.includes("The database connection is back")),
      )
      .toHaveLength(1);
    expect(lines.filter((l) => l.includes("request failed") || l.includes("job runner pass failed") || l.includes("PostgreSQL connection lost"))).toEqual([]);

    // A second outage is logged again.
    proxy.cut();
    expect((await api("GET", "/users/me")).status).toBeGreaterThanOrEqual(500);
    proxy.restore();
    while ((await api("GET", "/users/me")).status !== 200) await new Promise((r) => setTimeout(r, 200));
    expect(
      server
        .output()
        .split("\n")
        .filter((l) => l.includes("Lost the connection to the database")),
    ).toHaveLength(2);
  }, 60_000);
});
