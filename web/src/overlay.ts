import { route } from "./state.js";

/**
 * Overlays (#settings/…, #invite) close back to the view they were opened from, as in Zulip:
 * the last hash that was not an overlay's.
 */
let lastViewHash = "#";

function isOverlayHash(hash: string): boolean {
  return /^#(settings|organization|invite|channels|streams|groups|drafts|scheduled|keyboard-shortcuts|user|reminders)(\/|$)/.test(hash);
}

window.addEventListener("hashchange", (e) => {
  const old = new URL(e.oldURL).hash;
  if (!isOverlayHash(old)) lastViewHash = old || "#";
});

export function overlayOpen(): boolean {
  return route.value.kind === "overlay";
}

export function closeOverlay(): void {
  location.hash = lastViewHash;
}
