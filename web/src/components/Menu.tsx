import type { ComponentChildren } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import "./menus.css";

/**
 * A button that opens a menu (Zulip's popover menus: the sidebar's channel and topic menus, the
 * recipient bar's, a message's "more actions"), with the keyboard behaviour of a WAI-ARIA menu
 * button: the first item takes focus, arrows, Home and End move, Enter or Space choose, Esc and
 * Tab close and give focus back to the button. One menu is open at a time; a click elsewhere,
 * a scroll or a resize closes it. The menu is fixed to the viewport, so no scrolling pane clips it.
 */
export interface MenuItem {
  label: string;
  /** What choosing the item does; it runs after the menu closed and focus went back to the button. */
  run?: () => void;
  /** A link instead (channel settings): followed as any link. */
  href?: string;
  danger?: boolean;
}

let closeOpenMenu: (() => void) | null = null;

/**
 * Enter and Space on a button or link belong to it (they press it): they do not reach the app's
 * document-wide shortcuts (where Enter means "reply"). For the containers of such controls; a plain
 * <div> container gets role="presentation" (it only passes its controls' keys on, it is not a control).
 */
export function ownKeys(e: KeyboardEvent): void {
  if ((e.key === "Enter" || e.key === " ") && (e.target as HTMLElement).closest("button, a[href], summary, [role=menuitem]")) e.stopPropagation();
}

export function MenuButton({
  label,
  items,
  children,
  className = "",
  action,
  tabIndex,
}: {
  /** The button's and the menu's accessible name, e.g. "Menu for topic lunch". */
  label: string;
  /** Computed when the menu opens. */
  items: () => MenuItem[];
  /** What the button shows, if not an icon drawn by its class; the name is `label`. */
  children?: ComponentChildren;
  className?: string;
  action?: string;
  /** -1 inside a toolbar with one tab stop. */
  tabIndex?: number;
}) {
  const [open, setOpen] = useState<MenuItem[] | null>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);

  const close = (refocus: boolean) => {
    setOpen(null);
    if (closeOpenMenu === closeThis) closeOpenMenu = null;
    if (refocus) trigger.current?.focus();
  };
  const closeThis = () => close(false);
  // The document listeners below are added once per opening and call this render's close.
  const closeLatest = useRef(close);
  closeLatest.current = close;
  const show = () => {
    closeOpenMenu?.();
    closeOpenMenu = closeThis;
    setOpen(items());
  };

  useLayoutEffect(() => {
    const el = menu.current;
    const button = trigger.current;
    if (!open || !el || !button) return;
    const rect = button.getBoundingClientRect();
    const width = el.offsetWidth;
    const height = el.offsetHeight;
    const left = Math.max(8, Math.min(rect.right - width, window.innerWidth - width - 8, rect.left));
    const below = rect.bottom + 4;
    const top = below + height + 8 <= window.innerHeight ? below : Math.max(8, rect.top - height - 4);
    el.style.left = `${Math.max(8, left)}px`;
    el.style.top = `${top}px`;
    el.style.visibility = "visible";
    el.querySelector<HTMLElement>("[role=menuitem]")?.focus();
  }, [open]);

  useEffect(() => {
    if (!open) return;
    const outside = (e: Event) => {
      const target = e.target as Node;
      if (menu.current?.contains(target) || trigger.current?.contains(target)) return;
      closeLatest.current(false);
    };
    const onScroll = (e: Event) => !menu.current?.contains(e.target as Node) && closeLatest.current(false);
    const onResize = () => closeLatest.current(false);
    document.addEventListener("mousedown", outside, true);
    document.addEventListener("focusin", outside, true);
    window.addEventListener("scroll", onScroll, true);
    window.addEventListener("resize", onResize);
    return () => {
      document.removeEventListener("mousedown", outside, true);
      document.removeEventListener("focusin", outside, true);
      window.removeEventListener("scroll", onScroll, true);
      window.removeEventListener("resize", onResize);
    };
  }, [open]);

  const onMenuKey = (e: KeyboardEvent) => {
    const entries = [...(menu.current?.querySelectorAll<HTMLElement>("[role=menuitem]") ?? [])];
    const at = entries.indexOf(document.activeElement as HTMLElement);
    const move = (index: number) => entries[(index + entries.length) % entries.length]?.focus();
    if (e.key === "ArrowDown") move(at + 1);
    else if (e.key === "ArrowUp") move(at - 1);
    else if (e.key === "Home") move(0);
    else if (e.key === "End") move(entries.length - 1);
    else if (e.key === "Escape" || e.key === "Tab") close(true);
    else if (e.key === "Enter" || e.key === " ") {
      // Pressed here, not taken by the app's shortcuts (Enter is "reply" there).
      e.stopPropagation();
      if (e.key === " ") {
        e.preventDefault();
        (document.activeElement as HTMLElement | null)?.click();
      }
      return;
    } else if (e.key.length === 1 && /\S/.test(e.key)) {
      // Type-ahead: the next item starting with the letter.
      const next = entries.findIndex((item, i) => i > at && item.textContent?.trim().toLowerCase().startsWith(e.key.toLowerCase()));
      const first = entries.findIndex((item) => item.textContent?.trim().toLowerCase().startsWith(e.key.toLowerCase()));
      if (next >= 0 || first >= 0) move(next >= 0 ? next : first);
    } else return;
    e.preventDefault();
    e.stopPropagation();
  };

  const choose = (item: MenuItem) => {
    close(!item.href);
    item.run?.();
  };

  return (
    <>
      <button
        type="button"
        ref={trigger}
        class={`menu-button ${className} ${open ? "open" : ""}`}
        aria-label={label}
        title={label}
        aria-haspopup="menu"
        aria-expanded={!!open}
        data-action={action}
        tabIndex={tabIndex}
        onClick={(e) => (e.stopPropagation(), e.preventDefault(), open ? close(true) : show())}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown" && !open) {
            e.preventDefault();
            e.stopPropagation();
            show();
          } else ownKeys(e);
        }}
      >
        {children}
      </button>
      {open && (
        <div class="popover-menu" role="menu" aria-label={label} tabIndex={-1} ref={menu} onKeyDown={onMenuKey} onClick={(e) => e.stopPropagation()}>
          {open.length === 0 && <p class="menu-empty">Nothing to do here</p>}
          {open.map((item) =>
            item.href ? (
              <a key={item.label} role="menuitem" tabIndex={-1} href={item.href} onClick={() => choose(item)}>
                {item.label}
              </a>
            ) : (
              <button key={item.label} type="button" role="menuitem" tabIndex={-1} class={item.danger ? "danger" : ""} onClick={() => choose(item)}>
                {item.label}
              </button>
            ),
          )}
        </div>
      )}
    </>
  );
}
