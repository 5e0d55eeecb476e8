import { signal } from "@preact/signals";

type SettingsModule = typeof import("./Settings.js");
const loaded = signal<SettingsModule | null>(null);
let loading: Promise<void> | null = null;

/** The settings overlay, its code fetched the first time it opens (not part of the initial JavaScript). */
export function LazySettings({ section }: { section: string }) {
  const module = loaded.value;
  if (!module) {
    loading ??= import("./Settings.js").then((m) => void (loaded.value = m));
    return (
      <div class="settings-overlay" role="dialog" aria-label="Settings">
        <p class="status">Loading…</p>
      </div>
    );
  }
  return <module.Settings section={section} />;
}
