import { badRequest } from "./errors.js";
import { lazy } from "../util/lazy.js";

// sharp (libvips) is loaded by the first avatar or icon upload.
const loadSharp = lazy(async () => (await import("sharp")).default);

/** Zulip's BadImageError text for bytes that are not a decodable raster image. */
const BAD_IMAGE = "Could not decode image; did you upload an image file?";

/**
 * Zulip's resize_avatar: the image turned upright by its EXIF orientation, cropped to its centre
 * square and scaled to `size` pixels on a side, as a PNG (an animated image keeps its first frame).
 * SVG and other vector input is refused: only the raster formats sharp decodes are accepted.
 */
export async function squarePng(data: Buffer, size: number): Promise<Buffer> {
  const sharp = await loadSharp();
  try {
    const image = sharp(data, { limitInputPixels: 50_000_000, animated: false });
    const { format } = await image.metadata();
    if (!format || format === "svg" || format === "pdf") throw new Error(`format ${format ?? "unknown"}`);
    return await image.rotate().resize({ width: size, height: size, fit: "cover", position: "centre" }).png().toBuffer();
  } catch {
    throw badRequest(BAD_IMAGE);
  }
}
