import { signal } from "@preact/signals";
import type { ComponentType } from "preact";

/**
 * Overlays whose code is fetched the first time they open (not part of the initial JavaScript):
 * personal settings (#settings/<section>), organization administration (#organization/<section>)
 * and invitations (#invite).
 */
const LOADERS = {
  settings: () => import("./Settings.js").then((m) => m.Settings as ComponentType<{ section: string }>),
  organization: () => import("./Admin.js").then((m) => m.Admin as ComponentType<{ section: string }>),
  invite: () => import("./Invite.js").then((m) => m.Invite as ComponentType<{ section: string }>),
  drafts: () => import("./ComposeOverlays.js").then((m) => m.Drafts as ComponentType<{ section: string }>),
  scheduled: () => import("./ComposeOverlays.js").then((m) => m.Scheduled as ComponentType<{ section: string }>),
};
export type LazyOverlayName = keyof typeof LOADERS;

const loaded = signal<Partial<Record<LazyOverlayName, ComponentType<{ section: string }>>>>({});
const loading = new Set<LazyOverlayName>();

export function isLazyOverlay(name: string): name is LazyOverlayName {
  return name in LOADERS;
}

export function LazyOverlay({ name, section }: { name: LazyOverlayName; section: string }) {
  const Component = loaded.value[name];
  if (!Component) {
    if (!loading.has(name)) {
      loading.add(name);
      void LOADERS[name]().then((c) => (loaded.value = { ...loaded.value, [name]: c }));
    }
    return (
      <div class="settings-overlay" role="dialog" aria-label="Loading">
        <p class="status">Loading…</p>
      </div>
    );
  }
  return <Component section={section} />;
}
