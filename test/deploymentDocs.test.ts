import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, firstStartCredentials, freePort, runParley, useServerProcesses } from "./support/process.js";
import { basicAuth } from "./support/auth.js";

/**
 * docs/deployment.md's files, checked with the tools that understand them when this machine has
 * them: the systemd unit with `systemd-analyze verify`, the nginx site with `nginx -t` and then
 * for real in front of a Parley process (TLS, a long poll, an upload), the Dockerfile with hadolint.
 */
const servers = useServerProcesses();
const has = (tool: string) => spawnSync("sh", ["-c", `command -v ${tool}`]).status === 0;
const deployFile = (name: string) => fs.readFileSync(path.join(REPO_ROOT, "docs/deploy", name), "utf8");
const docs = fs.readFileSync(path.join(REPO_ROOT, "docs/deployment.md"), "utf8");

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-deploy-"));
  servers.onCleanup(async () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe("deployment files", () => {
  it.skipIf(!has("systemd-analyze"))("the systemd unit passes systemd-analyze verify", () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "parley.service"), deployFile("parley.service"));
    const result = spawnSync("systemd-analyze", ["verify", path.join(dir, "parley.service")], { encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr.trim()).toBe("");
  });

  it.skipIf(!has("systemd-analyze"))("the multi-process template unit passes systemd-analyze verify as parley@9991", () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "parley@.service"), deployFile("parley@.service"));
    fs.symlinkSync(path.join(dir, "parley@.service"), path.join(dir, "parley@9991.service"));
    const result = spawnSync("systemd-analyze", ["verify", path.join(dir, "parley@9991.service")], { encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr.trim()).toBe("");
    expect(deployFile("parley@.service")).toMatch(/^Environment=PARLEY_PROCESS_ID=%l-%i$/m);
  });

  it("the Dockerfile runs the bundle as a non-root user with a data volume and a health check", () => {
    const dockerfile = fs.readFileSync(path.join(REPO_ROOT, "Dockerfile"), "utf8");
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^VOLUME \["\/data"\]$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n.*\/health/m);
    expect(dockerfile).toMatch(/^CMD \["node", (".*", )?"dist\/cli.js", "serve"\]$/m);
    if (!has("hadolint")) {
      console.warn("hadolint is not installed: the Dockerfile was not linted");
      return;
    }
    const lint = spawnSync("hadolint", [path.join(REPO_ROOT, "Dockerfile")], { encoding: "utf8" });
    expect(lint.status, lint.stdout + lint.stderr).toBe(0);
  });

  it("the container image and the systemd units launch node as npm start does (malloc settings, node options)", () => {
    // package.json's start script: `NAME=${NAME:-value} … exec node <options> scripts/start.mjs serve`
    // (scripts/bench-lib.mjs's serverLaunch reads it the same way to start benchmarked servers).
    const start = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { scripts: { start: string } }).scripts.start;
    const env = [...start.matchAll(/\b([A-Z_]+)=\$\{\1:-([^}]*)\}/g)].map(([, name, value]) => [name, value]);
    const nodeOptions = /\bexec node((?: --?[\w-]+(?:=\S+)?)*) scripts\/start\.mjs serve$/.exec(start)?.[1]?.split(" ").filter(Boolean);
    expect(env.map(([name]) => name)).toEqual(["MALLOC_ARENA_MAX", "MALLOC_MMAP_THRESHOLD_"]);
    expect(nodeOptions).toBeDefined();
    const dockerfile = fs.readFileSync(path.join(REPO_ROOT, "Dockerfile"), "utf8");
    for (const [name, value] of env) expect(dockerfile).toMatch(new RegExp(`^ {4}${name}=${value}( \\\\)?$`, "m"));
    expect(dockerfile).toContain(`CMD [${["node", ...nodeOptions!, "dist/cli.js", "serve"].map((a) => JSON.stringify(a)).join(", ")}]\n`);
    for (const unit of ["parley.service", "parley@.service"]) {
      const text = deployFile(unit);
      for (const [name, value] of env) expect(text, unit).toContain(`\nEnvironment=${name}=${value}\n`);
      expect(text, unit).toContain(`\nExecStart=/usr/bin/node ${[...nodeOptions!, "/opt/parley/dist/cli.js", "serve"].join(" ")}\n`);
    }
  });

  it.skipIf(!has("nginx") || !has("openssl"))(
    "the nginx site passes nginx -t and serves Parley over TLS: API, long poll, upload",
    async () => {
      const dir = tempDir();
      selfSignedCertificate(dir, ["chat.example.com"]);
      const server = await servers.start({ ...(await servers.freshEnv()), PARLEY_EVENT_HEARTBEAT_SECONDS: "1", PARLEY_LOG_LEVEL: "info" });
      const httpsPort = await runNginxSite(dir, deployFile("nginx.conf"), server.baseUrl);
      const ca = fs.readFileSync(path.join(dir, "cert.pem"));
      const credentials = await firstStartCredentials(server);
      const authorization = basicAuth(credentials.email, credentials.apiKey);
      const request = (method: string, urlPath: string, body?: Buffer | string, headers: Record<string, string> = {}) =>
        httpsRequest({ port: httpsPort, ca, host: "chat.example.com", method, path: urlPath, body, headers: { Authorization: authorization, ...headers } });

      const me = await request("GET", "/api/v1/users/me");
      expect(me.body).toMatchObject({ result: "success", email: credentials.email });
      const registered = await request("POST", "/api/v1/register", "event_types=%5B%22message%22%5D", { "Content-Type": "application/x-www-form-urlencoded" });
      expect(registered.body.result).toBe("success");
      // A long poll through nginx is answered by Parley's heartbeat, not cut by the proxy.
      const poll = await request("GET", `/api/v1/events?queue_id=${registered.body.queue_id}&last_event_id=-1`);
      expect(poll.body).toMatchObject({ result: "success", events: [{ type: "heartbeat" }] });
      // A 2 MB upload passes client_max_body_size and reaches Parley.
      const boundary = "parleyboundary";
      const file = Buffer.alloc(2 * 1024 * 1024, 7);
      const form = Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
        file,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const uploaded = await request("POST", "/api/v1/user_uploads", form, { "Content-Type": `multipart/form-data; boundary=${boundary}` });
      expect(uploaded.body.result, JSON.stringify(uploaded.body)).toBe("success");

      // Compression: nginx gzips what Parley sends as it is, and passes on what Parley compressed.
      const encodingOf = (urlPath: string, acceptEncoding: string) =>
        new Promise<{ status: number; encoding?: string; vary?: string }>((resolve, reject) => {
          https
            .get(
              {
                host: "127.0.0.1",
                port: httpsPort,
                servername: "chat.example.com",
                ca,
                path: urlPath,
                headers: { Host: "chat.example.com", Authorization: authorization, "Accept-Encoding": acceptEncoding },
              },
              (res) => {
                res.resume();
                res.on("end", () => resolve({ status: res.statusCode!, encoding: res.headers["content-encoding"], vary: res.headers.vary }));
              },
            )
            .on("error", reject);
        });
      expect(await encodingOf("/static/pages.css", "gzip, br")).toMatchObject({ status: 200, encoding: "gzip", vary: "Accept-Encoding" });
      expect(await encodingOf("/static/generated/emoji/emoji_api.json", "gzip, br")).toMatchObject({ status: 200, encoding: "br", vary: "Accept-Encoding" });
      const entry = fs.readdirSync(path.join(REPO_ROOT, "dist", "web")).find((name) => /^main-[\w-]+\.js$/.test(name));
      if (entry) expect(await encodingOf(`/static/webapp/${entry}`, "gzip, br")).toMatchObject({ status: 200, encoding: "br", vary: "Accept-Encoding" });
    },
    60_000,
  );

  it.skipIf(!has("nginx") || !has("openssl"))(
    "with the subdomain set-up, nginx serves each organization at its own host over one wildcard certificate",
    async () => {
      const dir = tempDir();
      selfSignedCertificate(dir, ["chat.example.com", "*.chat.example.com"]);
      const env = { ...(await servers.freshEnv()), PARLEY_ROOT_DOMAIN: "chat.example.com", PARLEY_EXTERNAL_URL: "https://chat.example.com" };
      const server = await servers.start(env);
      const created = await runParley(
        [
          "create-organization",
          "--string-id",
          "acme",
          "--name",
          "Acme Labs",
          "--owner-email",
          "boss@acme.example",
          "--owner-password",
          "correct horse battery",
        ],
        env,
      );
      expect(created.code, created.stderr).toBe(0);
      const acmeKey = /API key:\s+(\S+)/.exec(created.stdout)?.[1];
      // docs/deployment.md's one change to the site: both host names in each server_name.
      const site = deployFile("nginx.conf").replaceAll("server_name chat.example.com;", "server_name chat.example.com *.chat.example.com;");
      expect(docs).toContain("server_name chat.example.com *.chat.example.com;");
      const httpsPort = await runNginxSite(dir, site, server.baseUrl);
      const ca = fs.readFileSync(path.join(dir, "cert.pem"));
      const at = (host: string, urlPath: string, headers: Record<string, string> = {}) =>
        httpsRequest({ port: httpsPort, ca, host, method: "GET", path: urlPath, headers });

      expect((await at("chat.example.com", "/api/v1/server_settings")).body).toMatchObject({ realm_url: "https://chat.example.com" });
      expect((await at("acme.chat.example.com", "/api/v1/server_settings")).body).toMatchObject({
        realm_name: "Acme Labs",
        realm_url: "https://acme.chat.example.com",
      });
      const acmeAuth = { Authorization: basicAuth("boss@acme.example", acmeKey!) };
      expect((await at("acme.chat.example.com", "/api/v1/users/me", acmeAuth)).body).toMatchObject({ result: "success", email: "boss@acme.example" });
      expect(await at("chat.example.com", "/api/v1/users/me", acmeAuth)).toMatchObject({
        status: 401,
        body: { msg: "Account is not associated with this subdomain" },
      });
      expect((await at("nowhere.chat.example.com", "/login/")).status).toBe(404);
    },
    60_000,
  );
});

/** A key and a self-signed certificate for `names` (the first is the subject): dir/key.pem and dir/cert.pem. */
function selfSignedCertificate(dir: string, names: string[]): void {
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      `/CN=${names[0]}`,
      "-addext",
      `subjectAltName=${names.map((name) => `DNS:${name}`).join(",")}`,
      "-keyout",
      path.join(dir, "key.pem"),
      "-out",
      path.join(dir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
}

/**
 * Runs nginx with `site` (docs/deploy/nginx.conf, maybe edited as the docs say) on local ports, in
 * front of the Parley at `upstream`, with dir's certificate: checked by `nginx -t` first. Resolves
 * to the HTTPS port once nginx answers /health.
 */
async function runNginxSite(dir: string, site: string, upstream: string): Promise<number> {
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const local = site
    .replace(/^\s*listen \[::\].*$/gm, "")
    .replace("listen 80;", `listen 127.0.0.1:${httpPort};`)
    .replace("listen 443 ssl http2;", `listen 127.0.0.1:${httpsPort} ssl http2;`)
    .replace("server 127.0.0.1:9991;", `server ${new URL(upstream).host};`)
    .replace("/etc/letsencrypt/live/chat.example.com/fullchain.pem", path.join(dir, "cert.pem"))
    .replace("/etc/letsencrypt/live/chat.example.com/privkey.pem", path.join(dir, "key.pem"));
  expect(local).not.toContain("letsencrypt");
  fs.writeFileSync(path.join(dir, "parley.conf"), local);
  fs.writeFileSync(
    path.join(dir, "nginx.conf"),
    `daemon off;\nworker_processes 1;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp {\n  access_log off;\n  include ${dir}/parley.conf;\n}\n`,
  );
  const nginxArgs = ["-p", dir, "-c", path.join(dir, "nginx.conf"), "-e", path.join(dir, "error.log")];
  const check = spawnSync("nginx", ["-t", ...nginxArgs], { encoding: "utf8" });
  expect(check.status, check.stderr).toBe(0);
  const nginx = spawn("nginx", nginxArgs, { stdio: "ignore" });
  servers.onCleanup(async () => {
    if (nginx.exitCode === null) {
      nginx.kill("SIGQUIT");
      await new Promise((r) => nginx.once("exit", r));
    }
  });
  const ca = fs.readFileSync(path.join(dir, "cert.pem"));
  const deadline = Date.now() + 10_000;
  while ((await httpsRequest({ port: httpsPort, ca, host: "chat.example.com", method: "GET", path: "/health" }).catch(() => ({ status: 0 }))).status !== 200) {
    if (Date.now() > deadline) throw new Error(`nginx did not start: ${fs.readFileSync(path.join(dir, "error.log"), "utf8")}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return httpsPort;
}

/** One HTTPS request to nginx on 127.0.0.1:port for `host` (SNI and Host header); JSON bodies parsed. */
function httpsRequest(options: {
  port: number;
  ca: Buffer;
  host: string;
  method: string;
  path: string;
  body?: Buffer | string;
  headers?: Record<string, string>;
}): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: "127.0.0.1",
        port: options.port,
        servername: options.host,
        ca: options.ca,
        method: options.method,
        path: options.path,
        headers: { Host: options.host, ...options.headers },
      },
      (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode!, body: text.startsWith("{") ? JSON.parse(text) : text }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}
