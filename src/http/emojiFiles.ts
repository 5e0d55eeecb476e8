import { readFile } from "node:fs/promises";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { AppContext } from "../appContext.js";
import { ZULIP_EMOJI_URL } from "../lib/emoji.js";
import { contentTypeForEmojiFile, emojiFilePath } from "../lib/emojiFiles.js";
import { emojiImages } from "./emojiImages.js";

/** The image of Zulip's extra emoji `:zulip:` (our artwork, scripts/draw-zulip-emoji.mjs), beside this module in src/ and dist/. */
const ZULIP_EMOJI_PNG = new URL("./assets/zulip-emoji.png", import.meta.url);

/**
 * Custom emoji images, read-only, at Zulip's URL: GET /user_avatars/{realm_id}/emoji/images/{file}.
 * Like Zulip's, these URLs need no login (the emoji list is public to the realm and the names are
 * random). Only names that lib/emojiFiles.ts makes are served, always as a raster image type,
 * with a CSP that allows nothing to run.
 */
export async function emojiFiles(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { dataDir } = opts.ctx.config;
  await app.register(emojiImages); // the Unicode emoji sets' images
  // Zulip's apps and rendered messages (lib/markdown/emoji.ts) load :zulip: from Zulip's static path.
  let zulipEmoji: Promise<Buffer> | undefined;
  app.get(ZULIP_EMOJI_URL, async (_request, reply) => {
    zulipEmoji ??= readFile(ZULIP_EMOJI_PNG);
    return reply
      .header("Content-Type", "image/png")
      .header("Cache-Control", IMMUTABLE)
      .send(await zulipEmoji);
  });

  app.get<{ Params: { realm_id: string; file: string } }>("/user_avatars/:realm_id/emoji/images/:file", async (request, reply) => {
    const { realm_id: realmId, file } = request.params;
    const full = /^\d{1,15}$/.test(realmId) ? emojiFilePath(dataDir, Number(realmId), file) : undefined;
    if (!full) return notFound(reply);
    let data: Buffer;
    try {
      data = await readFile(full);
    } catch {
      return notFound(reply);
    }
    return reply
      .header("Content-Type", contentTypeForEmojiFile(file))
      .header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
      .header("Cache-Control", IMMUTABLE)
      .send(data);
  });
}

const IMMUTABLE = "public, max-age=31536000, immutable";

function notFound(reply: FastifyReply): FastifyReply {
  return reply.status(404).send({ result: "error", msg: "Not Found", code: "NOT_FOUND" });
}
