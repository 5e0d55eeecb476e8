import { type RefObject } from "preact";
import { useLayoutEffect, useRef } from "preact/hooks";

/**
 * Modal dialogs (the user card, the move-topic dialog, the shortcuts list, the settings overlays):
 * focus moves into the dialog when it opens, Tab and Shift+Tab cycle inside it, Esc closes it
 * (when `close` is given) and focus goes back to what had it before, as in the image viewer.
 * Only the topmost open dialog answers keys, so a card opened over settings closes alone.
 */
interface Modal {
  element: () => HTMLElement | null;
  /** Esc's action; undefined when something else closes the dialog on Esc. */
  close: () => (() => void) | undefined;
}
const stack: Modal[] = [];

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

/** The elements Tab can reach inside `root`, in order (visible ones only). */
export function focusables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.getClientRects().length > 0 && !el.closest("[inert]"));
}

function onKeyDown(e: KeyboardEvent): void {
  const top = stack[stack.length - 1];
  const root = top?.element();
  if (!top || !root) return;
  const close = top.close();
  if (e.key === "Escape" && close) {
    // A field's own Esc (closing a typeahead or the emoji picker) comes first.
    if (document.querySelector(".emoji-picker")) return;
    e.preventDefault();
    e.stopPropagation();
    close();
  } else if (e.key === "Tab") {
    const items = focusables(root);
    if (items.length === 0) {
      e.preventDefault();
      root.focus();
      return;
    }
    const active = document.activeElement as HTMLElement | null;
    // Pickers and the image viewer opened from the dialog keep their own Tab.
    if (active?.closest(".emoji-picker, .lightbox")) return;
    const at = active ? items.indexOf(active) : -1;
    // Wrap at the ends; from the dialog itself or from outside (focus lost), come back in.
    if (at === -1 || (e.shiftKey && at === 0) || (!e.shiftKey && at === items.length - 1)) {
      e.preventDefault();
      (e.shiftKey ? items[items.length - 1] : items[0])?.focus();
    }
  }
}

/**
 * Makes the element behind `ref` a modal dialog while the calling component is mounted. `initial`
 * picks what gets the focus (default: the dialog itself, which then reads out its label).
 */
export function useModal(ref: RefObject<HTMLElement | null>, close?: () => void, initial?: (root: HTMLElement) => HTMLElement | null | undefined): void {
  // The latest close function (it may close over fresh state).
  const closeRef = useRef(close);
  closeRef.current = close;
  // `initial` is used once, when the dialog opens: the first render's.
  const initialRef = useRef(initial);
  // A layout effect: the dialog answers Esc and Tab from the moment it is in the page. (An effect
  // runs after the next paint, and an Esc pressed in between reached the app's handler, which
  // leaves another part's dialog open.)
  useLayoutEffect(() => {
    const opener = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
    const modal: Modal = { element: () => ref.current, close: () => closeRef.current };
    stack.push(modal);
    if (stack.length === 1) document.addEventListener("keydown", onKeyDown, true);
    const root = ref.current;
    if (root) {
      if (root.getAttribute("role") === "dialog") root.setAttribute("aria-modal", "true");
      if (!root.hasAttribute("tabindex")) root.tabIndex = -1;
      if (!root.contains(document.activeElement)) (initialRef.current?.(root) ?? root).focus({ preventScroll: true });
    }
    return () => {
      stack.splice(stack.indexOf(modal), 1);
      if (stack.length === 0) document.removeEventListener("keydown", onKeyDown, true);
      // Back to the opener, unless the closing action moved the focus somewhere on purpose.
      const active = document.activeElement;
      if (opener?.isConnected && (!active || active === document.body || root?.contains(active) || !active.isConnected)) opener.focus();
    };
  }, [ref]);
}
