// The peer of the side-by-side benchmark (scripts/bench-peer.mjs): a Prosody 0.12 server started
// and stopped by the bench, and the smallest XMPP client its job needs.
//
// Prosody runs as a child process (never the system service) from a config written into a temp
// directory: loopback only, a free port, in-memory storage, plain-text c2s (no TLS), anonymous SASL
// login (members log in without registering), one multi-user chat component with no room history
// sent on join and rooms unlocked on creation, no rate-limit module, logs in the temp directory.
//
// The client speaks XMPP over a raw TCP socket and parses the stream with ltx's SAX parser (the
// parser of xmpp.js), building an ltx Element for each top-level stanza: the same work per message
// as any XMPP client, and far less than a full client library's middleware.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Element } from "ltx";
import SaxLtx from "ltx/src/parsers/ltx.js";
import { freePort, sleep } from "./bench-lib.mjs";

export const XMPP_DOMAIN = "localhost";
export const MUC_DOMAIN = "conference.localhost";
const PROSODY = "/usr/bin/prosody";

/** Installs Debian's prosody with apt when missing; throws with a clear message if that fails. */
export function ensureProsody(say = () => {}) {
  if (fs.existsSync(PROSODY)) return;
  say("Prosody is missing: apt-get install -y prosody…");
  try {
    execFileSync("apt-get", ["install", "-y", "--no-install-recommends", "prosody"], { stdio: ["ignore", "ignore", "inherit"] });
  } catch (error) {
    throw new Error(`Prosody is not installed and \`apt-get install -y prosody\` failed (${error.message}); install it to run the side-by-side benchmark`, {
      cause: error,
    });
  }
  if (!fs.existsSync(PROSODY)) throw new Error(`apt-get installed prosody but ${PROSODY} is missing`);
}

function configText({ dir, port }) {
  return `-- Written by scripts/bench-xmpp.mjs for one benchmark run.
run_as_root = true -- the bench runs as root on CI machines; Prosody refuses to otherwise
daemonize = false
pidfile = "${dir}/prosody.pid"
data_path = "${dir}/data"
plugin_paths = {}
log = { { levels = { min = "warn" }, to = "file", filename = "${dir}/prosody.log" } }
interfaces = { "127.0.0.1" }
local_interfaces = { "127.0.0.1" }
c2s_ports = { ${port} }
c2s_interfaces = { "127.0.0.1" }
s2s_ports = {}
component_ports = {}
http_ports = {}
https_ports = {}
c2s_require_encryption = false
s2s_require_encryption = false
storage = "memory"
-- Only what the job needs: no mod_limits (rate limits), no TLS, no s2s, no offline storage.
modules_enabled = { "saslauth", "disco", "ping" }
modules_disabled = { "s2s", "tls", "offline", "c2s_csi" }
certificates = "${dir}/certs"

VirtualHost "${XMPP_DOMAIN}"
  authentication = "anonymous"

Component "${MUC_DOMAIN}" "muc"
  muc_room_locking = false
  muc_room_default_history_length = 0
  max_history_messages = 0
  muc_tombstones = false
  -- Occupants are not told of each other's joins (XEP-0045 presence broadcast off): the job is the
  -- messages, and with it on, N joins cost N² presence stanzas before the run (minutes at N = 500).
  -- Parley's members likewise register for message events only.
  muc_room_default_presence_broadcast = {}
  restrict_room_creation = false
`;
}

/** Starts Prosody on a free loopback port; resolves once it accepts connections. */
export async function startProsody() {
  ensureProsody();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-bench-prosody-"));
  fs.mkdirSync(path.join(dir, "data"));
  fs.mkdirSync(path.join(dir, "certs"));
  const port = await freePort();
  const config = path.join(dir, "prosody.cfg.lua");
  fs.writeFileSync(config, configText({ dir, port }));
  const started = performance.now();
  const child = spawn(PROSODY, ["-F", "--config", config], { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const prosody = { child, port, dir, log: path.join(dir, "prosody.log") };
  prosody.stop = () => stopProsody(prosody);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const log = fs.existsSync(prosody.log) ? fs.readFileSync(prosody.log, "utf8") : "";
      fs.rmSync(dir, { recursive: true, force: true });
      throw new Error(`prosody exited during start (${child.exitCode ?? child.signalCode}): ${stderr}${log}`);
    }
    if (performance.now() - started > 20_000) {
      await stopProsody(prosody);
      throw new Error("prosody did not accept connections within 20 s");
    }
    const open = await new Promise((resolve) => {
      const s = net.connect(port, "127.0.0.1");
      s.once("connect", () => (s.destroy(), resolve(true)));
      s.once("error", () => resolve(false));
    });
    if (open) break;
    await sleep(20);
  }
  prosody.startMs = performance.now() - started;
  return prosody;
}

/** SIGTERM, then SIGKILL after 5 s; removes the temp directory (keeps the log when asked to). */
export async function stopProsody(prosody, { keepLog = false } = {}) {
  const { child } = prosody;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  }
  if (!keepLog) fs.rmSync(prosody.dir, { recursive: true, force: true });
}

const NS_SASL = "urn:ietf:params:xml:ns:xmpp-sasl";
const NS_BIND = "urn:ietf:params:xml:ns:xmpp-bind";
const NS_MUC = "http://jabber.org/protocol/muc";
const NS_MUC_USER = "http://jabber.org/protocol/muc#user";

const streamHeader = `<?xml version='1.0'?><stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' to='${XMPP_DOMAIN}' version='1.0'>`;

/**
 * One XMPP client connection: anonymous login, resource binding, a multi-user chat room.
 * `onStanza(element)` sees every top-level stanza once the session is up.
 */
export class XmppConnection {
  constructor(port) {
    this.port = port;
    this.onStanza = () => {};
    this.waiters = [];
    this.closed = false;
  }

  /** Opens the stream, logs in anonymously and binds a resource; resolves with the full JID. */
  async connect() {
    this.socket = net.connect(this.port, "127.0.0.1");
    this.socket.setNoDelay(true);
    this.socket.setEncoding("utf8");
    this.socket.on("data", (data) => this.parser.write(data));
    this.socket.on("error", (error) => this.fail(error));
    this.socket.on("close", () => this.fail(new Error("connection closed")));
    await new Promise((resolve, reject) => {
      this.socket.once("connect", resolve);
      this.socket.once("error", reject);
    });
    this.openStream();
    const features = await this.next((el) => el.name === "stream:features");
    if (
      !features
        .getChild("mechanisms", NS_SASL)
        ?.getChildren("mechanism")
        .some((m) => m.getText() === "ANONYMOUS")
    ) {
      throw new Error(`the XMPP server offers no ANONYMOUS login: ${features}`);
    }
    this.write(`<auth xmlns='${NS_SASL}' mechanism='ANONYMOUS'/>`);
    const auth = await this.next((el) => el.attrs.xmlns === NS_SASL);
    if (auth.name !== "success") throw new Error(`anonymous login failed: ${auth}`);
    this.openStream();
    await this.next((el) => el.name === "stream:features");
    this.write(`<iq type='set' id='bind'><bind xmlns='${NS_BIND}'/></iq>`);
    const bound = await this.next((el) => el.name === "iq" && el.attrs.id === "bind");
    this.jid = bound.getChild("bind", NS_BIND)?.getChildText("jid");
    if (!this.jid) throw new Error(`resource binding failed: ${bound}`);
    return this.jid;
  }

  /** Joins `room` as `nick` asking for no history; resolves on the room's self-presence (status 110). */
  async join(room, nick) {
    this.write(`<presence to='${room}/${nick}'><x xmlns='${NS_MUC}'><history maxstanzas='0'/></x></presence>`);
    const self = await this.next(
      (el) =>
        el.name === "presence" &&
        el.attrs.from === `${room}/${nick}` &&
        (el.attrs.type === "error" ||
          el
            .getChild("x", NS_MUC_USER)
            ?.getChildren("status")
            .some((s) => s.attrs.code === "110")),
    );
    if (self.attrs.type === "error") throw new Error(`joining ${room} failed: ${self}`);
  }

  sendGroupchat(room, id, body) {
    this.write(`<message type='groupchat' to='${room}' id='${id}'><body>${body}</body></message>`);
  }

  write(text) {
    if (!this.closed) this.socket.write(text);
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    this.socket.end("</stream:stream>");
    this.socket.destroy();
  }

  /**
   * From now on, only groupchat message bodies: `onBody(body)` for each, every other stanza
   * skipped by the SAX handlers without building an element (the client's CPU per message is
   * taken from the same two cores as the server's).
   */
  receiveBodies(onBody) {
    this.onBody = onBody;
  }

  /** A new parser per stream (the stream restarts after login): stanzas are depth-1 elements. */
  openStream() {
    const parser = new SaxLtx();
    let depth = 0;
    let current = null;
    // The fast path's state (receiveBodies): the current stanza's name and type, and its body.
    let isGroupchat = false;
    let inBody = false;
    let body = null;
    parser.on("startElement", (name, attrs) => {
      depth += 1;
      if (depth === 1) return; // <stream:stream>
      if (this.onBody) {
        if (depth === 2) {
          isGroupchat = name === "message" && attrs.type === "groupchat";
          body = null;
        } else if (depth === 3 && isGroupchat && name === "body") {
          inBody = true;
          body = "";
        }
        return;
      }
      const el = new Element(name, attrs);
      if (current) current.cnode(el);
      current = el;
    });
    parser.on("endElement", () => {
      depth -= 1;
      if (depth === 0) return this.fail(new Error("the server closed the stream"));
      if (this.onBody) {
        if (depth === 2) inBody = false;
        else if (depth === 1 && body !== null) {
          const text = body;
          body = null;
          this.onBody(text);
        }
        return;
      }
      if (!current) return;
      if (depth === 1) {
        const stanza = current;
        current = null;
        this.dispatch(stanza);
      } else current = current.parent;
    });
    parser.on("text", (text) => {
      if (inBody) body += text;
      else if (!this.onBody) current?.t(text);
    });
    this.parser = parser;
    this.write(streamHeader);
  }

  dispatch(stanza) {
    const i = this.waiters.findIndex((w) => w.match(stanza));
    if (i >= 0) return this.waiters.splice(i, 1)[0].resolve(stanza);
    if (stanza.name === "stream:error") return this.fail(new Error(`stream error: ${stanza}`));
    this.onStanza(stanza);
  }

  /** The next stanza that `match` accepts (within 30 s). */
  next(match) {
    return new Promise((resolve, reject) => {
      const waiter = { match, resolve: (el) => (clearTimeout(timer), resolve(el)), reject };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new Error("no answer from the XMPP server within 30 s"));
      }, 30_000);
      this.waiters.push(waiter);
    });
  }

  fail(error) {
    if (this.closed) return;
    this.closed = true;
    this.error = error;
    for (const w of this.waiters.splice(0)) w.reject(error);
    this.socket.destroy();
  }
}
