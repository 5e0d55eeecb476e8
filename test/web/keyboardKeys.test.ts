import { describe, expect, it } from "vitest";
import { hotkeyOf } from "../../web/src/keyboard/keys.js";

const press = (key: string, code: string, mods: Partial<Record<"shiftKey" | "altKey" | "ctrlKey" | "metaKey", boolean>> = {}) =>
  hotkeyOf({ key, code, shiftKey: false, altKey: false, ctrlKey: false, metaKey: false, ...mods });

describe("hotkeyOf (Zulip's key names)", () => {
  it("names letters in capitals, Shift+ for a shifted letter, so Caps Lock changes nothing", () => {
    expect(press("j", "KeyJ")).toBe("J");
    expect(press("J", "KeyJ")).toBe("J"); // Caps Lock on
    expect(press("I", "KeyI", { shiftKey: true })).toBe("Shift+I");
    expect(press("i", "KeyI", { shiftKey: true })).toBe("Shift+I"); // Caps Lock and Shift
  });

  it("ignores Shift on the characters that need it, and keeps it on named keys", () => {
    for (const [key, code] of [["?", "Slash"] as const, ["+", "Equal"], [":", "Semicolon"], ["*", "Digit8"], ["@", "Digit2"], [">", "Period"]])
      expect(press(key, code, { shiftKey: true })).toBe(key);
    expect(press("Enter", "Enter", { shiftKey: true })).toBe("Shift+Enter");
    expect(press("ArrowUp", "ArrowUp")).toBe("ArrowUp");
    expect(press("End", "End")).toBe("End");
  });

  it("prefixes Alt and Ctrl (Meta alone is no shortcut off a Mac)", () => {
    expect(press("s", "KeyS", { ctrlKey: true })).toBe("Ctrl+S");
    expect(press("k", "KeyK", { ctrlKey: true })).toBe("Ctrl+K");
    expect(press("k", "KeyK", { altKey: true })).toBe("Alt+K");
    expect(press("[", "BracketLeft", { ctrlKey: true })).toBe("Ctrl+[");
    expect(press("s", "KeyS", { metaKey: true })).toBeNull();
  });

  it("reads another layout's letters by their QWERTY position", () => {
    expect(press("о", "KeyJ")).toBe("J"); // Russian layout
    expect(press("Ш", "KeyI", { shiftKey: true })).toBe("Shift+I");
    expect(press(":", "Semicolon", { shiftKey: true })).toBe(":");
    expect(press("é", "Digit2")).toBeNull();
    expect(press("Dead", "Quote")).toBeNull();
  });
});
