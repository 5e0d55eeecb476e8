/**
 * A small tus 1.0 client (https://tus.io/protocols/resumable-upload) for the server's
 * /api/v1/tus endpoint, which authenticates the web app by its session cookie and CSRF token:
 * creation (POST with Upload-Length and Upload-Metadata), then PATCH requests of CHUNK_SIZE bytes from the
 * server's offset. A failed PATCH (network drop, server restart, 5xx, a 409 offset mismatch) is
 * retried after asking the server where the upload stands (HEAD → Upload-Offset), so the bytes
 * already received are not sent again; when the browser is offline it waits until it is online.
 * The last PATCH answers Zulip's `{url, filename}`. When that answer is lost (the server stored the
 * file), HEAD says Upload-Offset = Upload-Length and the PATCH sent then is empty: the server
 * answers it with the same `{url, filename}` (it keeps a finished upload's answer for a day).
 */
import { csrfToken } from "../api.js";

const TUS_ENDPOINT = "/api/v1/tus";
const TUS_VERSION = "1.0.0";
/** Bytes per PATCH: a dropped connection costs at most this much to send again. */
const CHUNK_SIZE = 1024 * 1024;
/** Waits between attempts after a failure (the last one repeats), as tus-js-client's defaults. */
const RETRY_DELAYS_MS = [0, 1000, 3000, 5000, 10_000];
/** Consecutive failures without progress after which the upload is given up. */
const MAX_FAILURES = 12;

interface TusResult {
  url: string;
  filename: string;
}

interface TusOptions {
  onProgress?: (loaded: number, total: number) => void;
  signal?: AbortSignal;
  /** Bytes per PATCH (CHUNK_SIZE unless given; tests use smaller ones). */
  chunkSize?: number;
}

/** An error the server answered (4xx other than 409/423), which retrying cannot fix. */
export class TusError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

interface Answer {
  status: number;
  header: (name: string) => string | null;
  text: string;
}

/** One request by XMLHttpRequest (fetch reports no upload progress); network failures reject. */
function request(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: Blob | null,
  opts: TusOptions,
  onSent?: (bytes: number) => void,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) return reject(new DOMException("Upload cancelled", "AbortError"));
    const xhr = new XMLHttpRequest();
    xhr.open(method, url);
    xhr.withCredentials = true;
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    if (onSent) xhr.upload.onprogress = (e) => onSent(e.loaded);
    const abort = () => xhr.abort();
    opts.signal?.addEventListener("abort", abort, { once: true });
    const done = () => opts.signal?.removeEventListener("abort", abort);
    xhr.onload = () => (done(), resolve({ status: xhr.status, header: (n) => xhr.getResponseHeader(n), text: xhr.responseText }));
    xhr.onerror = () => (done(), reject(new Error("network error")));
    xhr.onabort = () => (done(), reject(new DOMException("Upload cancelled", "AbortError")));
    xhr.send(body);
  });
}

/** Upload-Metadata: comma-separated `key base64(value)` pairs. */
function metadata(file: File): string {
  const b64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));
  return [`filename ${b64(file.name)}`, `filetype ${b64(file.type || "application/octet-stream")}`].join(",");
}

function messageOf(answer: Answer): string {
  try {
    const parsed = JSON.parse(answer.text) as { message?: unknown; msg?: unknown } | null;
    if (typeof parsed?.message === "string") return parsed.message;
    if (typeof parsed?.msg === "string") return parsed.msg;
  } catch {
    // not JSON
  }
  return answer.text.trim() || `HTTP ${answer.status}`;
}

/** Resolves when the browser is online again (or at once), or rejects when aborted. */
function whenOnline(signal?: AbortSignal): Promise<void> {
  if (navigator.onLine) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const online = () => (signal?.removeEventListener("abort", aborted), resolve());
    const aborted = () => (window.removeEventListener("online", online), reject(new DOMException("Upload cancelled", "AbortError")));
    window.addEventListener("online", online, { once: true });
    signal?.addEventListener("abort", aborted, { once: true });
  });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (signal?.removeEventListener("abort", aborted), resolve()), ms);
    const aborted = () => (clearTimeout(timer), reject(new DOMException("Upload cancelled", "AbortError")));
    signal?.addEventListener("abort", aborted, { once: true });
  });
}

const retryable = (status: number) => status === 0 || status === 409 || status === 423 || status === 429 || status >= 500;

/** Uploads `file` with tus; resolves with the server's `{url, filename}`. */
export async function tusUpload(file: File, opts: TusOptions = {}): Promise<TusResult> {
  const base = { "Tus-Resumable": TUS_VERSION, "X-CSRFToken": csrfToken };
  const created = await request("POST", TUS_ENDPOINT, { ...base, "Upload-Length": String(file.size), "Upload-Metadata": metadata(file) }, null, opts);
  if (created.status !== 201 || !created.header("Location")) throw new TusError(messageOf(created), created.status);
  const location = new URL(created.header("Location")!, new URL(TUS_ENDPOINT, window.location.href)).toString();
  const chunkSize = opts.chunkSize ?? CHUNK_SIZE;

  let offset = 0;
  let failures = 0;
  let needsOffset = false;
  for (;;) {
    try {
      if (needsOffset) {
        // Where the server stands: bytes of a PATCH cut off midway may have been kept.
        const head = await request("HEAD", location, base, null, opts);
        if (head.status === 404 || head.status === 410) throw new TusError("The upload expired on the server; try again.", head.status);
        if (head.status !== 200) throw Object.assign(new Error(`HEAD ${head.status}`), { status: head.status });
        offset = Number(head.header("Upload-Offset") ?? "0");
        needsOffset = false;
      }
      const end = Math.min(file.size, offset + chunkSize);
      const headers = { ...base, "Upload-Offset": String(offset), "Content-Type": "application/offset+octet-stream" };
      const answer = await request("PATCH", location, headers, file.slice(offset, end), opts, (sent) => opts.onProgress?.(offset + sent, file.size));
      if (answer.status === 204 || answer.status === 200) {
        const next = Number(answer.header("Upload-Offset") ?? end);
        if (next > offset) failures = 0;
        offset = next;
        opts.onProgress?.(offset, file.size);
        if (offset >= file.size) {
          if (answer.status !== 200) throw new TusError("The server did not answer the upload's address.", answer.status);
          return JSON.parse(answer.text) as TusResult;
        }
        continue;
      }
      if (!retryable(answer.status)) throw new TusError(messageOf(answer), answer.status);
      throw Object.assign(new Error(`PATCH ${answer.status}`), { status: answer.status });
    } catch (error) {
      if (error instanceof TusError || (error instanceof DOMException && error.name === "AbortError")) throw error;
      failures++;
      if (failures > MAX_FAILURES) throw new TusError("The upload failed after several attempts; check your connection.", 0);
      needsOffset = true;
      await whenOnline(opts.signal);
      await sleep(RETRY_DELAYS_MS[Math.min(failures - 1, RETRY_DELAYS_MS.length - 1)]!, opts.signal);
    }
  }
}
