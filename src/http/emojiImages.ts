import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { FastifyInstance, FastifyReply } from "fastify";

/**
 * Images of the Unicode emoji at Zulip's static paths, from the emoji-datasource-google (Noto
 * Emoji, Apache-2.0) and emoji-datasource-twitter (Twemoji, CC-BY 4.0) packages, as Zulip's
 * tools/setup/emoji/build_emoji lays them out:
 *
 * - `/static/generated/emoji/images-<set>-64/<emoji_code>.png`, one 64 px image per emoji, named by
 *   Zulip's emoji code (the non-qualified code point sequence: no FE0F), which the web app shows
 *   (loading="lazy") and which Zulip's email notifications link to;
 * - `/static/generated/emoji/sheet-<set>-64.png`, the sprite sheet (Zulip's older web app);
 * - `zulip.png` in each image folder, our `:zulip:` artwork.
 *
 * Sets: google, twitter, and google-blob (Zulip's old Google set, in no maintained package: drawn
 * with Google's current images). Public and cached for a year, like Zulip's static files.
 */
export async function emojiImages(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { set: string; file: string } }>("/static/generated/emoji/images-:set/:file", async (request, reply) => {
    const set = imageSet(request.params.set, "-64");
    const code = /^([0-9a-f]{1,6}(?:-[0-9a-f]{1,6}){0,9})\.png$/.exec(request.params.file)?.[1];
    if (!set) return notFound(reply);
    if (request.params.file === "zulip.png") return sendPng(reply, await readFile(ZULIP_EMOJI_PNG));
    const image = code && imageNames().get(code);
    if (!image) return notFound(reply);
    let data: Buffer;
    try {
      data = await readFile(path.join(packageDir(set), "img", set, "64", image));
    } catch {
      return notFound(reply); // not in this set
    }
    return sendPng(reply, data);
  });

  app.get<{ Params: { file: string } }>("/static/generated/emoji/:file", async (request, reply) => {
    const set = /^sheet-(.+)-64\.png$/.exec(request.params.file)?.[1];
    const name = set && imageSet(set, "");
    if (!name) return notFound(reply);
    return sendPng(reply, await readFile(path.join(packageDir(name), "img", name, "sheets-256", "64.png")));
  });
}

/** Zulip's image sets (`google-64`), as the package that draws them, or null. */
function imageSet(name: string, suffix: string): "google" | "twitter" | null {
  if (name === `google${suffix}` || name === `google-blob${suffix}`) return "google";
  if (name === `twitter${suffix}`) return "twitter";
  return null;
}

const requireHere = createRequire(import.meta.url);

function packageDir(set: "google" | "twitter"): string {
  return path.dirname(requireHere.resolve(`emoji-datasource-${set}/package.json`));
}

/** The image of `:zulip:`, beside this module in src/ and dist/ (emojiFiles.ts serves it too). */
const ZULIP_EMOJI_PNG = new URL("./assets/zulip-emoji.png", import.meta.url);

interface EmojiDataImage {
  unified: string;
  non_qualified?: string | null;
  image: string;
  skin_variations?: Record<string, EmojiDataImage>;
}

let names: Map<string, string> | undefined;

/**
 * Zulip's emoji code → the package's image file, read from the package's emoji.json (a large
 * file) on the first request. Zulip's code is the non-qualified sequence where there is one, lower case.
 */
function imageNames(): Map<string, string> {
  if (names) return names;
  const data = requireHere("emoji-datasource-google/emoji.json") as EmojiDataImage[];
  names = new Map();
  const add = (emoji: EmojiDataImage) => {
    names!.set((emoji.non_qualified || emoji.unified).toLowerCase(), emoji.image);
    names!.set(emoji.unified.toLowerCase(), emoji.image);
  };
  for (const emoji of data) {
    add(emoji);
    for (const variation of Object.values(emoji.skin_variations ?? {})) add(variation);
  }
  return names;
}

function sendPng(reply: FastifyReply, data: Buffer): FastifyReply {
  return reply.header("Content-Type", "image/png").header("Cache-Control", "public, max-age=31536000, immutable").send(data);
}

function notFound(reply: FastifyReply): FastifyReply {
  return reply.status(404).send({ result: "error", msg: "Not Found", code: "NOT_FOUND" });
}
