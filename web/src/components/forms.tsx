import { signal } from "@preact/signals";
import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";
import { closeOverlay } from "../overlay.js";
import "./settings.css";

/**
 * The pieces the settings-like overlays share (personal settings, organization settings, user
 * groups): the overlay's frame with its section list, the "Saved" indicator next to a section's
 * title, fieldsets, and controls that save as soon as they change.
 */

/** What the last save said: shown next to the section's title. One overlay shows at a time. */
export const saved = signal<{ text: string; error: boolean } | null>(null);

/** Runs a change, showing "Saving…", then `done` or the server's error. Whether it succeeded. */
export async function attempt(action: () => Promise<unknown>, done = "Saved"): Promise<boolean> {
  saved.value = { text: "Saving…", error: false };
  try {
    await action();
    saved.value = { text: done, error: false };
    return true;
  } catch (error) {
    saved.value = { text: (error as Error).message, error: true };
    return false;
  }
}

export function Group({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <fieldset>
      <legend>{title}</legend>
      {children}
    </fieldset>
  );
}

/** A checkbox that saves on change. */
export function CheckField({ name, label, checked, onSave }: { name: string; label: string; checked: boolean; onSave: (value: boolean) => unknown }) {
  return (
    <label class="check">
      <input type="checkbox" name={name} checked={checked} onChange={(e) => void onSave(e.currentTarget.checked)} />
      {label}
    </label>
  );
}

/** A labelled select that saves on change; numeric option values are saved as numbers. */
export function SelectField({
  name,
  label,
  value,
  options,
  onSave,
}: {
  name: string;
  label: string;
  value: unknown;
  options: Array<[string | number, string]>;
  onSave: (value: string | number) => unknown;
}) {
  return (
    <label class="field">
      <span>{label}</span>
      <select
        name={name}
        value={String(value)}
        onChange={(e) => {
          const raw = e.currentTarget.value;
          void onSave(typeof options[0]?.[0] === "number" ? Number(raw) : raw);
        }}
      >
        {options.map(([v, text]) => (
          <option key={v} value={String(v)}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

function SavedIndicator() {
  const s = saved.value;
  return s && s.text ? (
    <span class={`saved ${s.error ? "error" : ""}`} role="status">
      {s.text}
    </span>
  ) : null;
}

/**
 * The frame of a settings overlay: a header with a close link, the list of sections (links to
 * `#<hashPrefix>/<id>`), and the current section with its title and the save indicator.
 */
export function SettingsFrame({
  title,
  closeLabel,
  navLabel,
  sections,
  hashPrefix,
  current,
  className = "",
  heading,
  links = [],
  children,
}: {
  title: string;
  closeLabel: string;
  navLabel: string;
  sections: Array<[string, string]>;
  hashPrefix: string;
  current: string;
  className?: string;
  /** The section's title when it is not one of `sections` (a page below one). */
  heading?: string;
  /** Links to other overlays, after the sections: [hash, text]. */
  links?: Array<[string, string]>;
  children: ComponentChildren;
}) {
  const sectionTitle = heading ?? sections.find(([id]) => id === current)?.[1] ?? "";
  // A new section starts without the previous one's "Saved".
  useEffect(() => void (saved.value = null), [current]);
  return (
    <div class="settings-overlay" role="dialog" aria-label={title}>
      <div class={`settings ${className}`.trim()}>
        <header>
          <h1>{title}</h1>
          <button type="button" class="close" aria-label={closeLabel} onClick={() => closeOverlay()}>
            ✕
          </button>
        </header>
        <nav aria-label={navLabel}>
          {sections.map(([id, text]) => (
            <a key={id} href={`#${hashPrefix}/${id}`} class={id === current ? "current" : ""} aria-current={id === current ? "page" : undefined}>
              {text}
            </a>
          ))}
          {links.map(([href, text]) => (
            <a key={href} href={href} class="other-overlay">
              {text}
            </a>
          ))}
        </nav>
        <section class={`settings-section ${current}`} data-section={current}>
          <h2>
            {sectionTitle}
            <SavedIndicator />
          </h2>
          {children}
        </section>
      </div>
    </div>
  );
}
