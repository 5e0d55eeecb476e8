import zlib from "node:zlib";
import type { FastifyInstance } from "fastify";
import { preferredEncoding } from "./webAppAssets.js";

/** Answers smaller than this go out as they are: compressing them saves less than it costs. */
const MIN_BYTES = 1024;

/**
 * Compresses the JSON answers of the API (brotli or gzip, as Accept-Encoding prefers) when they are
 * 1 KB or more: a page of 100 messages (50 KB) becomes 3–6 KB for 2–3 ms of one thread-pool
 * thread (zlib runs off the event loop), measured on our machines. Answers that already carry a
 * Content-Encoding (the app's page, the built files) and everything that is not JSON (uploads,
 * images) are left alone. Fast settings: brotli 5, gzip 6.
 */
export function compressJsonAnswers(app: FastifyInstance): void {
  // A callback hook that answers at once with a compressing stream: an async hook would leave the
  // reply unsent for a while, and an async handler that calls reply.send() without returning the
  // reply would then be answered with its own undefined (Fastify's wrap-thenable).
  app.addHook("onSend", (request, reply, payload, done) => {
    if (typeof payload !== "string" && !Buffer.isBuffer(payload)) return done(null, payload);
    if (reply.hasHeader("content-encoding") || !/^application\/json\b/.test(String(reply.getHeader("content-type") ?? ""))) return done(null, payload);
    reply.header("Vary", "Accept-Encoding");
    if (Buffer.byteLength(payload) < MIN_BYTES) return done(null, payload);
    const encoding = preferredEncoding(request.headers["accept-encoding"]);
    if (!encoding) return done(null, payload);
    const compressor =
      encoding === "br"
        ? zlib.createBrotliCompress({
            params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT },
          })
        : zlib.createGzip({ level: 6 });
    compressor.end(payload);
    reply.header("Content-Encoding", encoding);
    reply.removeHeader("content-length");
    done(null, compressor);
  });
}
