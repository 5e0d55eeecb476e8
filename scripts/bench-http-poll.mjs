// A lean HTTP/1.1 client for the bench's long-polls (scripts/bench-poller.mjs): one keep-alive
// socket per queue, one request at a time, answers framed by their Content-Length (the server
// answers GET /events with a length, and compresses nothing for a client that does not ask).
// Node's own http client costs its process ~100 µs of CPU per answer, 6–7× what the XMPP members
// of scripts/bench-xmpp.mjs spend per message; both kinds of client share the machine's cores with
// the server they measure, so the Zulip API's members get a client as lean as Prosody's.
import net from "node:net";

const HEADER_END = Buffer.from("\r\n\r\n");

export class PollSocket {
  /** `base`: http://host:port; `authorization`: the Authorization header's value. */
  constructor(base, authorization) {
    const url = new URL(base);
    this.port = Number(url.port || 80);
    this.host = url.hostname;
    this.head = `Host: ${url.host}\r\nAuthorization: ${authorization}\r\nConnection: keep-alive\r\n\r\n`;
    this.socket = null;
    this.pending = null;
    this.chunks = [];
    this.length = 0;
  }

  /** GET `path` (with its query): the parsed JSON answer and its status. */
  get(path) {
    if (this.pending) return Promise.reject(new Error("one request at a time"));
    const socket = this.socket ?? this.connect();
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      socket.write(`GET ${path} HTTP/1.1\r\n${this.head}`);
    });
  }

  close() {
    this.socket?.destroy();
    this.socket = null;
  }

  connect() {
    const socket = net.connect(this.port, this.host);
    socket.setNoDelay(true);
    socket.on("data", (chunk) => this.received(chunk));
    const lost = (error) => {
      if (this.socket === socket) this.socket = null;
      this.chunks = [];
      this.length = 0;
      this.settle(null, error ?? new Error("connection closed"));
    };
    socket.on("error", lost);
    socket.on("close", () => lost());
    this.socket = socket;
    return socket;
  }

  received(chunk) {
    this.chunks.push(chunk);
    this.length += chunk.length;
    const data = this.chunks.length === 1 ? chunk : Buffer.concat(this.chunks, this.length);
    const headerEnd = data.indexOf(HEADER_END);
    if (headerEnd < 0) return;
    const head = data.toString("latin1", 0, headerEnd);
    const lengthAt = head.search(/\r\ncontent-length:/i);
    if (lengthAt < 0) {
      this.socket?.destroy(new Error(`an answer without Content-Length: ${head.split("\r\n")[0]}`));
      return;
    }
    const bodyLength = Number.parseInt(head.slice(head.indexOf(":", lengthAt) + 1), 10);
    const end = headerEnd + HEADER_END.length + bodyLength;
    if (data.length < end) {
      this.chunks = [data];
      return;
    }
    // Answers never arrive unasked (one request at a time), so nothing follows this one's body.
    this.chunks = [];
    this.length = 0;
    const status = Number(head.slice(9, 12));
    let json;
    try {
      json = JSON.parse(data.toString("utf8", headerEnd + HEADER_END.length, end));
    } catch (error) {
      this.settle(null, error);
      return;
    }
    this.settle({ status, json }, null);
  }

  settle(answer, error) {
    const pending = this.pending;
    if (!pending) return;
    this.pending = null;
    if (error) pending.reject(error);
    else pending.resolve(answer);
  }
}
