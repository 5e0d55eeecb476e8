import { signal } from "@preact/signals";
import { buildCatalogue, type Catalogue, type Emoji, type EmojiTable } from "./emojiSearch.js";
import { realmEmoji } from "./state.js";

/**
 * The emoji picker's state. Its data, Zulip's 3,000 emoji names (the server's emoji table), is a
 * chunk of its own, fetched the first time the picker opens: not part of the initial JavaScript.
 */
export const picker = signal<{ top: number; left: number; onPick: (emoji: Emoji) => void } | null>(null);
export const catalogue = signal<Catalogue | null>(null);

let loading: Promise<void> | null = null;

export function loadCatalogue(): Promise<void> {
  loading ??= import("../../src/lib/emojiTable.json").then((module) => {
    const loaded = module as unknown as { default?: EmojiTable } & EmojiTable;
    const table = loaded.default ?? loaded;
    catalogue.value = buildCatalogue(table, [...realmEmoji.value.values()]);
  });
  return loading;
}

// New custom emoji: the catalogue is built again (the table itself is already here).
realmEmoji.subscribe(() => {
  if (catalogue.value) {
    loading = null;
    void loadCatalogue();
  }
});

export function openEmojiPicker(anchor: HTMLElement, onPick: (emoji: Emoji) => void): void {
  const rect = anchor.getBoundingClientRect();
  const width = Math.min(320, window.innerWidth - 16);
  const height = 360;
  const left = Math.max(8, Math.min(rect.left, window.innerWidth - width - 8));
  const top = rect.bottom + height + 8 < window.innerHeight ? rect.bottom + 4 : Math.max(8, rect.top - height - 4);
  picker.value = { top, left, onPick };
  void loadCatalogue();
}

export function closeEmojiPicker(): void {
  picker.value = null;
}
