import { PREVIEW_LINKS } from "./previewLinks.js";
import "./lightbox.css";

/**
 * The image viewer: the full image over the page, its name and a download link; Esc, the close
 * button or a click beside the image closes it; the arrow keys (and buttons) move between the
 * images of the message view in order.
 */
let overlay: HTMLDivElement | null = null;
let links: HTMLAnchorElement[] = [];
let index = 0;
let returnFocus: HTMLElement | null = null;

function fileName(link: HTMLAnchorElement): string {
  if (link.title) return link.title;
  const url = new URL(link.href, location.href);
  return decodeURIComponent(url.pathname.split("/").pop() ?? "") || url.hostname;
}

/** The download URL of an upload (/user_uploads/download/…), else the image's own address. */
function downloadUrl(href: string): string {
  const url = new URL(href, location.href);
  if (url.origin === location.origin && url.pathname.startsWith("/user_uploads/") && !url.pathname.startsWith("/user_uploads/download/"))
    return url.pathname.replace("/user_uploads/", "/user_uploads/download/");
  return href;
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> & Record<string, unknown> = {}, ...children: Node[]) {
  const el = document.createElement(tag);
  Object.assign(el, props);
  el.append(...children);
  return el;
}

function show(): void {
  const link = links[index];
  if (!overlay || !link) return;
  const preview = link.querySelector("img");
  const name = fileName(link);
  const img = element("img", { className: "lightbox-image", alt: name });
  // The original for an upload; for an external image the (proxied) preview the message shows.
  const own = new URL(link.href, location.href).origin === location.origin;
  img.src = own ? link.href : (preview?.dataset.originalSrc ?? preview?.src ?? link.href);
  const download = element("a", { className: "lightbox-download", href: downloadUrl(link.href), textContent: "Download" });
  download.setAttribute("download", name);
  const original = element("a", { className: "lightbox-open", href: link.href, target: "_blank", rel: "noopener noreferrer", textContent: "Open" });
  const close = element("button", { type: "button", className: "lightbox-close", textContent: "×", title: "Close (Esc)" });
  close.setAttribute("aria-label", "Close");
  close.addEventListener("click", closeLightbox);
  const header = element(
    "div",
    { className: "lightbox-bar" },
    element("span", { className: "lightbox-name", textContent: name }),
    element("span", { className: "lightbox-count", textContent: links.length > 1 ? `${index + 1} / ${links.length}` : "" }),
    download,
    original,
    close,
  );
  const stage = element("div", { className: "lightbox-stage" }, img);
  const nav: Node[] = [];
  if (links.length > 1) {
    const prev = element("button", { type: "button", className: "lightbox-prev", textContent: "‹", disabled: index === 0 });
    prev.setAttribute("aria-label", "Previous image");
    prev.addEventListener("click", () => move(-1));
    const next = element("button", { type: "button", className: "lightbox-next", textContent: "›", disabled: index === links.length - 1 });
    next.setAttribute("aria-label", "Next image");
    next.addEventListener("click", () => move(1));
    nav.push(prev, next);
  }
  overlay.replaceChildren(header, stage, ...nav);
  close.focus();
}

function move(delta: number): void {
  const next = index + delta;
  if (next < 0 || next >= links.length) return;
  index = next;
  show();
}

function onKey(e: KeyboardEvent): void {
  if (!overlay) return;
  if (e.key === "Escape") closeLightbox();
  else if (e.key === "ArrowLeft") move(-1);
  else if (e.key === "ArrowRight") move(1);
  else if (e.key !== "Tab") return;
  if (e.key === "Tab") {
    // Focus stays in the viewer.
    const focusable = [...overlay.querySelectorAll<HTMLElement>("a, button:not([disabled])")];
    const at = focusable.indexOf(document.activeElement as HTMLElement);
    const to = e.shiftKey ? (at <= 0 ? focusable.length - 1 : at - 1) : (at + 1) % focusable.length;
    focusable[to]?.focus();
  }
  e.preventDefault();
  e.stopPropagation();
}

export function openLightbox(link: HTMLAnchorElement): void {
  links = [...document.querySelectorAll<HTMLAnchorElement>(PREVIEW_LINKS)].filter((a) => a.querySelector("img"));
  index = Math.max(0, links.indexOf(link));
  if (links.length === 0) links = [link];
  if (!overlay) {
    returnFocus = document.activeElement as HTMLElement | null;
    overlay = element("div", { className: "lightbox" });
    overlay.setAttribute("role", "dialog");
    overlay.setAttribute("aria-modal", "true");
    overlay.setAttribute("aria-label", "Image viewer");
    overlay.addEventListener("click", (e) => {
      const target = e.target as Element;
      if (target === overlay || target.classList.contains("lightbox-stage")) closeLightbox();
    });
    document.body.append(overlay);
    window.addEventListener("keydown", onKey, true);
  }
  show();
}

function closeLightbox(): void {
  if (!overlay) return;
  overlay.remove();
  overlay = null;
  window.removeEventListener("keydown", onKey, true);
  returnFocus?.focus?.();
  returnFocus = null;
}
