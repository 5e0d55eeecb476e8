import type { FastifyInstance } from "fastify";
import { lazy } from "../util/lazy.js";

/**
 * The images of the GitHub, GitLab and Google buttons, at the URLs Zulip gives as their
 * `display_icon` (/static/images/authentication_backends/…), which Zulip's apps show in their
 * login buttons. Parley's own plain marks in each provider's colour, drawn here and rendered to
 * PNG on first request.
 */

export const ICON_PATH = "/static/images/authentication_backends/";

const SIZE = 64;

/** A disc in the colour with a white ring: recognisable by colour, no one's logo. */
function mark(colour: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 64 64">` +
    `<circle cx="32" cy="32" r="30" fill="${colour}"/><circle cx="32" cy="32" r="14" fill="none" stroke="#fff" stroke-width="8"/></svg>`
  );
}

const ICONS: Record<string, string> = {
  "github-icon.png": mark("#24292f"),
  "gitlab-icon.png": mark("#e24329"),
  "googl_e-icon.png": mark("#4285f4"),
};

const loadSharp = lazy(async () => (await import("sharp")).default);
const rendered = new Map<string, Promise<Buffer>>();

function png(file: string, svg: string): Promise<Buffer> {
  let image = rendered.get(file);
  if (!image) {
    image = loadSharp().then((sharp) => sharp(Buffer.from(svg)).png().toBuffer());
    rendered.set(file, image);
  }
  return image;
}

/** Serves the icon named `file` (a key of ICONS). */
export function mountProviderIcon(app: FastifyInstance, file: keyof typeof ICONS & string): void {
  const svg = ICONS[file];
  if (svg === undefined) throw new Error(`no icon ${file}`);
  app.get(ICON_PATH + file, async (_request, reply) =>
    reply
      .type("image/png")
      .header("Cache-Control", "public, max-age=86400")
      .send(await png(file, svg)),
  );
}
