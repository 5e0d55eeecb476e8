import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { NATS_URL, POSTGRES_URL, multiProcessEnv } from "./support/multiProcess.js";
import { REPO_ROOT, type ServerProcess, firstStartCredentials, freePort, useServerProcesses } from "./support/process.js";
import { basicAuth } from "./support/auth.js";
import { at } from "./support/at.js";

/**
 * Issue 18 end to end: three `parley serve` processes on one PostgreSQL database and NATS, behind
 * Debian's nginx configured as docs/deployment.md says (docs/deploy/nginx.conf with a round-robin
 * upstream of the three). Clients only ever talk to nginx.
 */
const servers = useServerProcesses();
const hasNginx = spawnSync("sh", ["-c", "command -v nginx && command -v openssl"]).status === 0;
const missing = [!hasNginx && "nginx and openssl", !NATS_URL && "PARLEY_TEST_NATS_URL", !POSTGRES_URL && "PARLEY_TEST_POSTGRES_URL"].filter(Boolean);
if (missing.length > 0) console.warn(`test/multiProcessNginx.test.ts: needs ${missing.join(", ")}; skipped`);

type Response = { status: number; body: any };

/** nginx in front of `upstreams`, from docs/deploy/nginx.conf; returns its HTTPS port and certificate. */
async function startNginx(upstreams: ServerProcess[]): Promise<{ port: number; ca: Buffer }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-nginx-"));
  servers.onCleanup(async () => fs.rmSync(dir, { recursive: true, force: true }));
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=chat.example.com", "-keyout", `${dir}/key.pem`, "-out", `${dir}/cert.pem`],
    { stdio: "ignore" },
  );
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const site = fs
    .readFileSync(path.join(REPO_ROOT, "docs/deploy/nginx.conf"), "utf8")
    .replace(/^\s*listen \[::\].*$/gm, "")
    .replace("listen 80;", `listen 127.0.0.1:${httpPort};`)
    .replace("listen 443 ssl http2;", `listen 127.0.0.1:${httpsPort} ssl http2;`)
    .replace("server 127.0.0.1:9991;", upstreams.map((s) => `server ${new URL(s.baseUrl).host};`).join("\n    "))
    .replace("/etc/letsencrypt/live/chat.example.com/fullchain.pem", `${dir}/cert.pem`)
    .replace("/etc/letsencrypt/live/chat.example.com/privkey.pem", `${dir}/key.pem`);
  fs.writeFileSync(`${dir}/parley.conf`, site);
  fs.writeFileSync(
    `${dir}/nginx.conf`,
    `daemon off;\nworker_processes 1;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp {\n  access_log off;\n  include ${dir}/parley.conf;\n}\n`,
  );
  const nginx = spawn("nginx", ["-p", dir, "-c", `${dir}/nginx.conf`, "-e", `${dir}/error.log`], { stdio: "ignore" });
  servers.onCleanup(async () => {
    if (nginx.exitCode === null) {
      nginx.kill("SIGQUIT");
      await new Promise((r) => nginx.once("exit", r));
    }
  });
  const ca = fs.readFileSync(`${dir}/cert.pem`);
  const deadline = Date.now() + 10_000;
  while ((await httpsRequest(httpsPort, ca, null, "GET", "/health").catch(() => ({ status: 0 }))).status !== 200) {
    if (Date.now() > deadline) throw new Error(`nginx did not start: ${fs.readFileSync(`${dir}/error.log`, "utf8")}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { port: httpsPort, ca };
}

function httpsRequest(port: number, ca: Buffer, auth: string | null, method: string, urlPath: string, params: Record<string, string> = {}): Promise<Response> {
  const form = new URLSearchParams(params).toString();
  const fullPath = method === "GET" && form ? `${urlPath}?${form}` : urlPath;
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: "127.0.0.1",
        port,
        servername: "chat.example.com",
        ca,
        method,
        path: fullPath,
        headers: {
          Host: "chat.example.com",
          ...(auth ? { Authorization: auth } : {}),
          ...(method === "GET" ? {} : { "Content-Type": "application/x-www-form-urlencoded" }),
        },
      },
      (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode!, body: text.startsWith("{") ? JSON.parse(text) : text }));
      },
    );
    req.on("error", reject);
    req.end(method === "GET" ? undefined : form);
  });
}

describe.skipIf(missing.length > 0)("three processes behind nginx", () => {
  it("clients see each other through any process; a process killed under load loses nothing; scheduled messages run once", async () => {
    const env = await multiProcessEnv(servers);
    const a = await servers.start(env);
    const [b, c] = await Promise.all([servers.start(env), servers.start(env)]);
    const processes = [a, b, c];
    const { port, ca } = await startNginx(processes);
    const owner = await firstStartCredentials(a);
    const asOwner = (method: string, urlPath: string, params?: Record<string, string>) =>
      httpsRequest(port, ca, basicAuth(owner.email, owner.apiKey), method, `/api/v1${urlPath}`, params);

    // Which process is which: each one's queue ids start with its id.
    const processIds = new Map<string, ServerProcess>();
    for (const server of processes) {
      const res = await fetch(`${server.baseUrl}/api/v1/register`, {
        method: "POST",
        headers: { Authorization: basicAuth(owner.email, owner.apiKey) },
        body: new URLSearchParams({ event_types: JSON.stringify(["message"]) }),
      });
      processIds.set(((await res.json()) as any).queue_id.split(":")[0], server);
    }
    expect(processIds.size).toBe(3);

    // A second user, made and logged in through nginx.
    const created = await asOwner("POST", "/users", { email: "iago@example.com", password: "iago-password-1", full_name: "Iago" });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const key = await httpsRequest(port, ca, null, "POST", "/api/v1/fetch_api_key", { username: "iago@example.com", password: "iago-password-1" });
    expect(key.status).toBe(200);
    const asIago = (method: string, urlPath: string, params?: Record<string, string>) =>
      httpsRequest(port, ca, basicAuth("iago@example.com", key.body.api_key), method, `/api/v1${urlPath}`, params);
    const ownerId = (await asOwner("GET", "/users/me")).body.user_id as number;
    const iagoId = created.body.user_id as number;

    // Both register through nginx: round robin puts consecutive registers on different processes.
    const eventTypes = { event_types: JSON.stringify(["message", "typing", "presence"]) };
    const ownerQueue = (await asOwner("POST", "/register", eventTypes)).body.queue_id as string;
    let iagoQueue = (await asIago("POST", "/register", eventTypes)).body.queue_id as string;
    expect(ownerQueue.split(":")[0]).not.toBe(iagoQueue.split(":")[0]);

    // Long polls through nginx (landing anywhere) see what the other sends through nginx.
    const poll = (as: typeof asOwner, queueId: string, lastEventId: number) => as("GET", "/events", { queue_id: queueId, last_event_id: String(lastEventId) });
    const iagoPoll = poll(asIago, iagoQueue, -1);
    await new Promise((r) => setTimeout(r, 200));
    expect((await asOwner("POST", "/messages", { type: "direct", to: JSON.stringify([iagoId]), content: "hello Iago" })).status).toBe(200);
    let iagoEvents = (await iagoPoll).body.events;
    expect(iagoEvents.map((e: any) => e.message?.content)).toEqual(["hello Iago"]);
    let iagoLast = iagoEvents.at(-1).id as number;

    expect((await asIago("POST", "/typing", { op: "start", to: JSON.stringify([ownerId]) })).status).toBe(200);
    expect((await asIago("POST", "/users/me/presence", { status: "active", new_user_input: "true" })).status).toBe(200);
    const ownerEvents: any[] = [];
    let ownerLast = -1;
    while (!ownerEvents.some((e) => e.type === "presence" && e.user_id === iagoId)) {
      const res = await poll(asOwner, ownerQueue, ownerLast);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      ownerEvents.push(...res.body.events);
      ownerLast = ownerEvents.at(-1).id;
    }
    expect(ownerEvents.some((e) => e.type === "typing" && e.op === "start" && e.sender.user_id === iagoId)).toBe(true);
    const presences = (await asOwner("GET", "/realm/presence")).body.presences;
    expect(presences["iago@example.com"]?.aggregated?.status).toBe("active");

    // Under load through nginx, the process holding Iago's queue is killed with SIGKILL.
    const victim = processIds.get(at(iagoQueue.split(":"), 0))!;
    const acknowledged: number[] = [];
    let failed = 0;
    const sender = async (n: number) => {
      for (let i = 0; i < 10; i++) {
        const res = await asOwner("POST", "/messages", { type: "direct", to: JSON.stringify([iagoId]), content: `load ${n}.${i}` }).catch(() => null);
        if (res?.status === 200) acknowledged.push(res.body.id);
        else failed += 1;
      }
    };
    const load = Promise.all([0, 1, 2, 3].map(sender));
    await new Promise((r) => setTimeout(r, 150));
    await victim.stop("SIGKILL");
    await load;
    // Every acknowledged message is stored (nginx answers 502 for a request the dead process held).
    expect(acknowledged.length + failed).toBe(40);
    expect(acknowledged.length).toBeGreaterThan(30);
    const stored = await asIago("GET", "/messages", { anchor: "newest", num_before: "100", num_after: "0", narrow: "[]" });
    const storedIds = new Set(stored.body.messages.map((m: any) => m.id));
    expect(acknowledged.filter((id) => !storedIds.has(id))).toEqual([]);

    // Iago's client recovers through the survivors: its queue is gone, it registers again.
    const lost = await poll(asIago, iagoQueue, iagoLast);
    expect(lost.body.code).toBe("BAD_EVENT_QUEUE_ID");
    const again = await asIago("POST", "/register", eventTypes);
    expect(again.status).toBe(200);
    iagoQueue = again.body.queue_id;
    expect(processIds.get(at(iagoQueue.split(":"), 0))).not.toBe(victim);
    iagoLast = -1;
    expect((await asOwner("POST", "/messages", { type: "direct", to: JSON.stringify([iagoId]), content: "after the crash" })).status).toBe(200);
    iagoEvents = (await poll(asIago, iagoQueue, iagoLast)).body.events;
    expect(iagoEvents.map((e: any) => e.message?.content)).toContain("after the crash");

    // A scheduled message (a job both survivors' runners look for) is sent exactly once.
    const scheduled = await asOwner("POST", "/scheduled_messages", {
      type: "direct",
      to: JSON.stringify([iagoId]),
      content: "scheduled once",
      scheduled_delivery_timestamp: String(Math.floor(Date.now() / 1000) + 1),
    });
    expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(200);
    const countScheduled = async () =>
      (await asIago("GET", "/messages", { anchor: "newest", num_before: "50", num_after: "0", narrow: "[]" })).body.messages.filter(
        (m: any) => m.content === "<p>scheduled once</p>",
      ).length;
    const deadline = Date.now() + 30_000;
    while ((await countScheduled()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    await new Promise((r) => setTimeout(r, 2000));
    expect(await countScheduled()).toBe(1);
  }, 300_000);
});
