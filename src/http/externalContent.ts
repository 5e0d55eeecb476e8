import type { FastifyInstance, FastifyReply } from "fastify";
import type { AppContext } from "../appContext.js";
import { urlFromCamoPath } from "../lib/camo.js";
import { OutgoingHttpError, requestOutgoing } from "../lib/outgoingHttp.js";

/** The largest image or video the proxy passes on (it holds it in memory meanwhile). */
const MAX_MEDIA_BYTES = 10 * 1024 * 1024;
const TIMEOUT_MS = 10_000;

/**
 * GET /external_content/<hmac>/<hex url>: the media proxy behind lib/camo.ts URLs (Zulip runs
 * go-camo there). It fetches only URLs this server signed, through the outgoing-HTTP guard (no
 * private addresses), and passes on images and videos only, with headers that keep a browser
 * from treating them as anything else. No login: message HTML carries these URLs to every reader,
 * and the signature already limits them to what was posted.
 */
export async function externalContent(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  app.get<{ Params: { digest: string; hex: string } }>("/external_content/:digest/:hex", async (request, reply) => {
    const url = urlFromCamoPath(request.params.digest, request.params.hex);
    if (url === null) return notFound(reply, "Bad signature");
    let upstream;
    try {
      upstream = await requestOutgoing({
        method: "GET",
        url,
        headers: { Accept: "image/*, video/*" },
        timeoutMs: TIMEOUT_MS,
        allowHosts: ctx.config.outgoing.allowHosts,
        maxBytes: MAX_MEDIA_BYTES,
        maxRedirects: 3,
      });
    } catch (error) {
      if (error instanceof OutgoingHttpError || error instanceof TypeError) return notFound(reply, "Upstream unavailable");
      throw error;
    }
    const type = (String(upstream.headers["content-type"] ?? "").split(";")[0] ?? "").trim().toLowerCase();
    if (upstream.status !== 200) return notFound(reply, `Upstream answered ${upstream.status}`);
    if (!/^(image|video)\/[\w.+-]+$/.test(type) || type === "image/svg+xml") return notFound(reply, "Not an image or video");
    if (upstream.truncated) return notFound(reply, "Too large");
    return reply
      .header("Content-Type", type)
      .header("Cache-Control", "public, max-age=86400")
      .header("X-Content-Type-Options", "nosniff")
      .header("Content-Security-Policy", "default-src 'none'; img-src data:; style-src 'unsafe-inline'")
      .send(upstream.body);
  });
}

function notFound(reply: FastifyReply, reason: string): FastifyReply {
  return reply.code(404).type("text/plain; charset=utf-8").header("X-Content-Type-Options", "nosniff").send(reason);
}
