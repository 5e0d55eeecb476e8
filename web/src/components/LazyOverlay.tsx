import { signal } from "@preact/signals";
import type { ComponentType } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { useModal } from "./modal.js";

/**
 * Overlays whose code is fetched the first time they open (not part of the initial JavaScript):
 * personal settings (#settings/<section>), organization administration (#organization/<section>),
 * invitations (#invite), channels (#channels/...) and user groups (#groups/...). `path` is the hash
 * after the overlay's name.
 */
const LOADERS = {
  settings: () => import("./Settings.js").then((m) => m.Settings as ComponentType<{ section: string }>),
  organization: () => import("./Admin.js").then((m) => m.Admin as ComponentType<{ section: string }>),
  invite: () => import("./Invite.js").then((m) => m.Invite as ComponentType<{ section: string }>),
  channels: () => import("./Channels.js").then((m) => m.Channels as ComponentType<{ section: string }>),
  groups: () => import("./Groups.js").then((m) => m.Groups as ComponentType<{ section: string; path?: string[] }>),
  drafts: () => import("./ComposeOverlays.js").then((m) => m.Drafts as ComponentType<{ section: string }>),
  scheduled: () => import("./ComposeOverlays.js").then((m) => m.Scheduled as ComponentType<{ section: string }>),
};
type LazyOverlayName = keyof typeof LOADERS;

const loaded = signal<Partial<Record<LazyOverlayName, ComponentType<{ section: string; path?: string[] }>>>>({});
const loading = new Set<LazyOverlayName>();

export function isLazyOverlay(name: string): name is LazyOverlayName {
  return name in LOADERS;
}

export function LazyOverlay({ name, section, path }: { name: LazyOverlayName; section: string; path?: string[] }) {
  const Component = loaded.value[name];
  const frame = useRef<HTMLDivElement>(null);
  // A modal: focus moves in and Tab stays in; Esc (keyboard.ts) closes it back to the view, and
  // focus returns to what opened it.
  useModal(frame, undefined, dialogOf);
  // The overlay's own dialog takes the focus when its code has come (after "Loading…").
  useEffect(() => {
    const root = frame.current;
    const dialog = root && dialogOf(root);
    if (dialog && !dialog.contains(document.activeElement)) dialog.focus();
  }, [Component, name]);
  if (!Component) {
    if (!loading.has(name)) {
      loading.add(name);
      void LOADERS[name]().then((c) => (loaded.value = { ...loaded.value, [name]: c }));
    }
  }
  return (
    <div class="overlay-frame" ref={frame}>
      {Component ? (
        <Component section={section} path={path} />
      ) : (
        <div class="settings-overlay" role="dialog" aria-label="Loading">
          <p class="status">Loading…</p>
        </div>
      )}
    </div>
  );
}

/** The overlay's dialog element (made focusable and modal), else the frame. */
function dialogOf(root: HTMLElement): HTMLElement {
  const dialog = root.querySelector<HTMLElement>("[role='dialog']");
  if (!dialog) return root;
  dialog.setAttribute("aria-modal", "true");
  if (!dialog.hasAttribute("tabindex")) dialog.tabIndex = -1;
  return dialog;
}
