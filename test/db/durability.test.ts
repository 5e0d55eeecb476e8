import net from "node:net";
import { describe, expect, it } from "vitest";
import { apiCaller, firstStartCredentials, type ServerProcess, useServerProcesses } from "../support/process.js";
import { startSmtpSink } from "../support/smtpSink.js";
import { basicAuth } from "../support/auth.js";

// A real server process with the default durability settings (SQLite: WAL, synchronous=FULL, group
// commit) is killed with SIGKILL as soon as a burst of concurrent sends has been acknowledged:
// after a restart every acknowledged message is there.
describe("acknowledged messages across a kill -9", () => {
  const servers = useServerProcesses();

  it("are all stored after the restart", async () => {
    const env = await servers.freshEnv();
    let parley: ServerProcess = await servers.start(env);
    const api = apiCaller(() => parley.baseUrl, await firstStartCredentials(parley));
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
      anchor: "newest",
      num_before: "100",
      num_after: "0",
      apply_markdown: "false",
      narrow: JSON.stringify([
        { operator: "channel", operand: "durable" },
        { operator: "topic", operand: "burst" },
      ]),
    });
    expect(fetched.status).toBe(200);
    expect(fetched.body.messages.map((m: { id: number }) => m.id)).toEqual(acknowledged);
    expect(new Set(fetched.body.messages.map((m: { content: string }) => m.content)).size).toBe(40);
  }, 60_000);
});

// The other acknowledged writes: reactions, uploads (multipart and tus) and durable jobs (a
// scheduled message and a queued email acknowledged just before the kill run after the restart).
describe("acknowledged reactions, uploads and jobs across a kill -9", () => {
  const servers = useServerProcesses();

  it("are all there after the restart, and the jobs run then", async () => {
    const env = await servers.freshEnv();
    // An SMTP server that accepts the connection and never answers: the email job cannot finish
    // before the kill. After the restart a real sink receives it (the lease is short).
    const stalled = net.createServer(() => undefined);
    await new Promise<void>((resolve) => stalled.listen(0, "127.0.0.1", resolve));
    servers.onCleanup(() => new Promise((resolve) => stalled.close(resolve)));
    const sink = await startSmtpSink();
    servers.onCleanup(() => sink.close());
    const stalledUrl = `smtp://127.0.0.1:${(stalled.address() as net.AddressInfo).port}`;

    let parley: ServerProcess = await servers.start({ ...env, PARLEY_SMTP_URL: stalledUrl, PARLEY_JOB_LEASE_SECONDS: "5" });
    const credentials = await firstStartCredentials(parley);
    const authorization = basicAuth(credentials.email, credentials.apiKey);
    const api = apiCaller(() => parley.baseUrl, credentials);
    expect((await api("POST", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "durable" }]) })).status).toBe(200);
    const sent = await api("POST", "/messages", { type: "stream", to: "durable", topic: "reactions", content: "react to me" });
    expect(sent.status).toBe(200);
    const emojis = ["smile", "heart", "tada", "rocket", "octopus", "cat", "dog", "star", "fire", "thumbs_up"];
    const channelId = (await api("GET", "/get_stream_id", { stream: "durable" })).body.stream_id as number;

    const multipartFile = `multipart ${"x".repeat(5000)}`;
    const tusFile = Buffer.from(`tus ${"y".repeat(70_000)}`);
    const multipart = async () => {
      const form = new FormData();
      form.append("file", new Blob([multipartFile], { type: "text/plain" }), "durable.txt");
      const res = await fetch(`${parley.baseUrl}/api/v1/user_uploads`, { method: "POST", headers: { Authorization: authorization }, body: form });
      return { status: res.status, body: await res.json() };
    };
    const tus = async () => {
      const b64 = (s: string) => Buffer.from(s).toString("base64");
      const headers = { "Tus-Resumable": "1.0.0", Authorization: authorization };
      const created = await fetch(`${parley.baseUrl}/api/v1/tus`, {
        method: "POST",
        headers: { ...headers, "Upload-Length": String(tusFile.length), "Upload-Metadata": `filename ${b64("tus.txt")},filetype ${b64("text/plain")}` },
      });
      expect(created.status).toBe(201);
      const location = created.headers.get("location")!;
      const res = await fetch(parley.baseUrl + location, {
        method: "PATCH",
        headers: { ...headers, "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream" },
        body: new Uint8Array(tusFile),
      });
      return { status: res.status, body: await res.json() };
    };
    const soon = Math.floor(Date.now() / 1000) + 3;
    const [reactions, upload, resumable, scheduled, emailChange] = await Promise.all([
      Promise.all(emojis.map((emoji_name) => api("POST", `/messages/${sent.body.id}/reactions`, { emoji_name }))),
      multipart(),
      tus(),
      api("POST", "/scheduled_messages", {
        type: "stream",
        to: String(channelId),
        topic: "later",
        content: "scheduled before the kill",
        scheduled_delivery_timestamp: String(soon),
      }),
      api("PATCH", "/settings", { email: "durable-new@example.com" }),
    ]);
    await parley.stop("SIGKILL");
    expect(reactions.map((r) => r.status)).toEqual(emojis.map(() => 200));
    expect([upload.status, resumable.status, scheduled.status, emailChange.status]).toEqual([200, 200, 200, 200]);

    parley = await servers.start({ ...env, PARLEY_SMTP_URL: sink.url, PARLEY_JOB_LEASE_SECONDS: "5" });
    const message = await api("GET", `/messages/${sent.body.id}`, {});
    expect(message.status).toBe(200);
    expect(message.body.message.reactions.map((r: { emoji_name: string }) => r.emoji_name).sort()).toEqual([...emojis].sort());
    for (const [url, expected] of [
      [upload.body.url, Buffer.from(multipartFile)],
      [resumable.body.url, tusFile],
    ] as const) {
      const served = await fetch(parley.baseUrl + url, { headers: { Authorization: authorization } });
      expect(served.status).toBe(200);
      expect(Buffer.from(await served.arrayBuffer()).equals(expected)).toBe(true);
    }
    const attachments = await api("GET", "/attachments");
    expect(attachments.body.attachments.map((a: { name: string }) => a.name).sort()).toEqual(["durable.txt", "tus.txt"]);

    // The jobs: the scheduled message is delivered and the confirmation email sent.
    const email = await sink.waitFor((m) => m.rcptTo.includes("durable-new@example.com"), 30_000);
    expect(email.parsed.subject).toMatch(/^Verify your new email address/);
    let delivered: Array<{ content: string }> = [];
    for (let i = 0; i < 150 && delivered.length === 0; i++) {
      const fetched = await api("GET", "/messages", {
        anchor: "newest",
        num_before: "10",
        num_after: "0",
        apply_markdown: "false",
        narrow: JSON.stringify([
          { operator: "channel", operand: "durable" },
          { operator: "topic", operand: "later" },
        ]),
      });
      delivered = fetched.body.messages;
      if (delivered.length === 0) await new Promise((r) => setTimeout(r, 200));
    }
    expect(delivered.map((m) => m.content)).toEqual(["scheduled before the kill"]);
    expect((await api("GET", "/scheduled_messages")).body.scheduled_messages).toEqual([]);
  }, 90_000);
});
