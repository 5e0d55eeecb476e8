import zlib from "node:zlib";
import type { FastifyInstance } from "fastify";
import { preferredEncoding } from "./webAppAssets.js";

/** Answers smaller than this go out as they are: compressing them saves less than it costs. */
const MIN_BYTES = 1024;
/**
 * Answers up to this size are compressed at once on the event loop (at these settings, quicker
 * than a trip through the thread pool). libuv's thread pool, where zlib's streams run, is shared with scrypt:
 * during a burst of logins every compressed answer would wait behind the password hashing (the
 * fuzz test saw another user's GET /messages wait for seconds). Larger answers (a big /register) stream
 * through the pool rather than block the loop for milliseconds more.
 */
const SYNC_MAX_BYTES = 128 * 1024;
const BROTLI_PARAMS = { [zlib.constants.BROTLI_PARAM_QUALITY]: 5, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT };

/**
 * Compresses the JSON answers of the API (brotli or gzip, as Accept-Encoding prefers) when they are
 * 1 KB or more: JSON shrinks several times. Answers that already carry a
 * Content-Encoding (the app's page, the built files) and everything that is not JSON (uploads,
 * images) are left alone. Fast settings: brotli 5, gzip 6.
 */
export function compressJsonAnswers(app: FastifyInstance): void {
  // A callback hook that answers at once (with the compressed bytes, or a compressing stream): an
  // async hook would leave the reply unsent for a while, and an async handler that calls
  // reply.send() without returning the reply would then be answered with its own undefined
  // (Fastify's wrap-thenable).
  app.addHook("onSend", (request, reply, payload, done) => {
    if (typeof payload !== "string" && !Buffer.isBuffer(payload)) return done(null, payload);
    if (reply.hasHeader("content-encoding") || !/^application\/json\b/.test(String(reply.getHeader("content-type") ?? ""))) return done(null, payload);
    reply.header("Vary", "Accept-Encoding");
    const size = Buffer.byteLength(payload);
    const encoding = jsonAnswerEncoding(request.headers["accept-encoding"], size);
    if (!encoding) return done(null, payload);
    reply.header("Content-Encoding", encoding);
    reply.removeHeader("content-length");
    done(null, compressJsonAnswer(payload, size, encoding));
  });
}

/**
 * How a JSON answer of `size` bytes goes to a client that sent `acceptEncoding`: compressed with
 * the encoding named, or as it is (null). Also used by GET /events's own path (eventsFastPath.ts).
 */
export function jsonAnswerEncoding(acceptEncoding: string | undefined, size: number): "br" | "gzip" | null {
  if (size < MIN_BYTES) return null;
  return preferredEncoding(acceptEncoding);
}

/** The answer compressed: its bytes, or (above SYNC_MAX_BYTES) a stream of them. */
export function compressJsonAnswer(payload: string | Buffer, size: number, encoding: "br" | "gzip"): Buffer | zlib.BrotliCompress | zlib.Gzip {
  if (size <= SYNC_MAX_BYTES) {
    return encoding === "br" ? zlib.brotliCompressSync(payload, { params: BROTLI_PARAMS }) : zlib.gzipSync(payload, { level: 6 });
  }
  const compressor = encoding === "br" ? zlib.createBrotliCompress({ params: BROTLI_PARAMS }) : zlib.createGzip({ level: 6 });
  compressor.end(payload);
  return compressor;
}
