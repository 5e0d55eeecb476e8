/**
 * Image previews in messages. The server renders an uploaded image's preview as the full file;
 * the web app shows the server's thumbnail instead (/user_uploads/thumbnail/…/840x560.webp, made
 * by a job after the upload) and falls back to the file while no thumbnail exists yet. Clicking a
 * preview opens the lightbox (a chunk loaded on first use).
 */
import { PREVIEW_LINKS } from "./previewLinks.js";
const THUMBNAIL_SIZE = "840x560";
const UPLOAD_IMG = /<img src="\/user_uploads\/(\d+\/[^"]+)">/g;

/** Message HTML with its uploaded images' previews pointing at their thumbnails. */
export function withThumbnails(html: string): string {
  if (!html.includes('<img src="/user_uploads/')) return html;
  return html.replace(
    UPLOAD_IMG,
    (_all, path: string) => `<img src="/user_uploads/thumbnail/${path}/${THUMBNAIL_SIZE}.webp" data-original-src="/user_uploads/${path}">`,
  );
}

let installed = false;

/** Document listeners: thumbnail fallback and lightbox opening. Called once at start. */
export function installImagePreviews(): void {
  if (installed) return;
  installed = true;
  document.addEventListener(
    "error",
    (e) => {
      const img = e.target;
      if (!(img instanceof HTMLImageElement) || !img.dataset.originalSrc) return;
      const original = img.dataset.originalSrc;
      delete img.dataset.originalSrc;
      img.src = original;
    },
    true,
  );
  document.addEventListener("click", (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    const link = (e.target as Element | null)?.closest?.(PREVIEW_LINKS);
    if (!(link instanceof HTMLAnchorElement) || !link.querySelector("img")) return;
    e.preventDefault();
    void import("./Lightbox.js").then((m) => m.openLightbox(link));
  });
}
