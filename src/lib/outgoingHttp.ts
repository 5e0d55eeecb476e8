import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import type https from "node:https";
import { BlockList, isIP } from "node:net";
import { group } from "../util/defined.js";
import { lazyRequire } from "../util/lazy.js";

/** node:https, loaded by the first request to an https: URL: with TLS under it, memory an idle server need not hold. */
const loadHttps = lazyRequire<typeof https>("node:https");

/**
 * Requests Parley makes to other servers (outgoing webhooks, later push services), under
 * SECURITY.md's rules: private, loopback and link-local destinations are refused unless the
 * operator lists the host (PARLEY_OUTGOING_HTTP_ALLOW_HOSTS); the address is checked where the
 * connection is made (a custom DNS lookup), so a name cannot resolve to a public address for the
 * check and a private one for the request; every request has a timeout.
 */
export type OutgoingFailure = "timeout" | "connection" | "forbidden";

export class OutgoingHttpError extends Error {
  constructor(
    readonly kind: OutgoingFailure,
    message: string,
  ) {
    super(message);
  }
}

const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  PRIVATE.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  PRIVATE.addSubnet(net, prefix, "ipv6");

function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, "ipv4");
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    return mapped ? PRIVATE.check(group(mapped, 1), "ipv4") : PRIVATE.check(address, "ipv6");
  }
  return true;
}

export interface OutgoingRequest {
  url: string;
  body: string;
  contentType: string;
  /** Extra request headers (e.g. Authorization for the push bouncer). */
  headers?: Record<string, string>;
  timeoutMs: number;
  /** Host names (or literal addresses) that may be private. */
  allowHosts: readonly string[];
}

export interface OutgoingResponse {
  status: number;
  text: string;
}

const MAX_RESPONSE_BYTES = 1024 * 1024;

/** POSTs `body`; resolves with any HTTP status, rejects with OutgoingHttpError when no answer came. */
export async function postOutgoing(req: OutgoingRequest): Promise<OutgoingResponse> {
  const response = await requestOutgoing({
    method: "POST",
    url: req.url,
    body: req.body,
    headers: { ...req.headers, "Content-Type": req.contentType },
    timeoutMs: req.timeoutMs,
    allowHosts: req.allowHosts,
    maxBytes: MAX_RESPONSE_BYTES,
  });
  return { status: response.status, text: response.body.toString("utf8") };
}

export interface OutgoingFetch {
  method: "GET" | "POST";
  url: string;
  body?: string;
  headers?: Record<string, string>;
  timeoutMs: number;
  allowHosts: readonly string[];
  /** Bytes of the body kept; the rest is discarded and `truncated` set. */
  maxBytes: number;
  /** GET only: redirects followed, each target checked again (default 0). */
  maxRedirects?: number;
}

export interface OutgoingFetchResponse {
  status: number;
  /** The URL that answered (after redirects). */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  truncated: boolean;
}

/** One request under the rules above; resolves with any HTTP status, rejects with OutgoingHttpError. */
export async function requestOutgoing(req: OutgoingFetch): Promise<OutgoingFetchResponse> {
  let url = req.url;
  for (let redirects = 0; ; redirects++) {
    const response = await requestOnce({ ...req, url });
    const location = response.headers.location;
    if (req.method !== "GET" || response.status < 300 || response.status >= 400 || !location || redirects >= (req.maxRedirects ?? 0)) return response;
    url = new URL(location, url).toString();
  }
}

function requestOnce(req: OutgoingFetch): Promise<OutgoingFetchResponse> {
  const url = new URL(req.url);
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  const allowed = req.allowHosts.includes(hostname);
  const checkedLookup = (host: string, options: object, callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(host, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "");
      const list = addresses as LookupAddress[];
      if (!allowed && list.some((a) => isPrivateAddress(a.address))) {
        return callback(new OutgoingHttpError("forbidden", `${host} resolves to a private or disallowed address`), "");
      }
      if ((options as { all?: boolean }).all) return callback(null, list);
      const [first] = list;
      if (first === undefined) return callback(new OutgoingHttpError("connection", `${host} has no address`), "");
      callback(null, first.address, first.family);
    });
  };
  return new Promise((resolve, reject) => {
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      reject(new OutgoingHttpError("forbidden", `unsupported URL scheme ${url.protocol}`));
      return;
    }
    if (isIP(hostname) && !allowed && isPrivateAddress(hostname)) {
      reject(new OutgoingHttpError("forbidden", `${hostname} is a private or disallowed address`));
      return;
    }
    const client = url.protocol === "https:" ? loadHttps() : http;
    const headers: Record<string, string | number> = { ...req.headers, "User-Agent": "Parley/1.0" };
    if (req.body !== undefined) headers["Content-Length"] = Buffer.byteLength(req.body);
    const request = client.request(url, { method: req.method, headers, lookup: checkedLookup as never, timeout: req.timeoutMs, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const finish = () =>
        resolve({ status: response.statusCode ?? 0, url: url.toString(), headers: response.headers, body: Buffer.concat(chunks), truncated });
      response.on("data", (chunk: Buffer) => {
        if (size + chunk.length > req.maxBytes) {
          chunks.push(chunk.subarray(0, req.maxBytes - size));
          size = req.maxBytes;
          truncated = true;
          response.destroy();
          finish();
          return;
        }
        size += chunk.length;
        chunks.push(chunk);
      });
      response.on("end", finish);
      response.on("error", (error) => reject(new OutgoingHttpError("connection", error.message)));
    });
    const timer = setTimeout(() => request.destroy(new OutgoingHttpError("timeout", `timed out after ${req.timeoutMs} ms`)), req.timeoutMs);
    request.on("close", () => clearTimeout(timer));
    request.on("timeout", () => request.destroy(new OutgoingHttpError("timeout", `timed out after ${req.timeoutMs} ms`)));
    request.on("error", (error) => reject(error instanceof OutgoingHttpError ? error : new OutgoingHttpError("connection", error.message)));
    request.end(req.body);
  });
}
