/**
 * Moving through the rows of a list view (Inbox, Recent conversations) by keyboard, as Zulip's
 * inbox_ui and recent_view do: ↓/J and ↑/K go from row to row and keep the column (the row's
 * link, its "Mark as read" button, its menu), ←/H and →/L go from one control of the row to the
 * next, wrapping; ↑ on the first row goes to the view's filter box, and ↓ or Esc there comes back
 * to the rows. Enter opens the focused link or presses the focused button, as it always does.
 *
 * The views mark themselves up: the view [data-nav-view], each row [data-nav-row] (a folder's
 * heading is one too), the row's main link [data-nav-primary] (else its first control). The rows
 * are read from the page, so a key never lands on a row that is not drawn.
 */

const ROW = "[data-nav-row]";
const CONTROLS = "a[href], button:not([disabled])";

/** Where the focus was last, per view: a row whose conversation was read goes, and the next key goes on from its place. */
const remembered = new Map<string, { row: number; column: string }>();

function shown(el: Element): boolean {
  return el.getClientRects().length > 0;
}

function listView(): HTMLElement | null {
  const view = document.querySelector<HTMLElement>("[data-nav-view]");
  return view && shown(view) ? view : null;
}

function rowsOf(view: HTMLElement): HTMLElement[] {
  return [...view.querySelectorAll<HTMLElement>(ROW)].filter(shown);
}

/** The row's controls, left to right (not those of a menu it has open). */
function controlsOf(row: HTMLElement): HTMLElement[] {
  return [...row.querySelectorAll<HTMLElement>(CONTROLS)].filter((el) => shown(el) && !el.closest("[role=menu]"));
}

function primaryOf(row: HTMLElement): HTMLElement | undefined {
  const controls = controlsOf(row);
  return controls.find((el) => el.hasAttribute("data-nav-primary")) ?? controls[0];
}

/** A control's column, the same in every row: "primary" for the row's main link, else its first class ("mark-read", the menu's). */
function columnOf(row: HTMLElement, control: HTMLElement): string {
  if (control === primaryOf(row)) return "primary";
  return control.classList[0] ?? control.tagName;
}

function focus(view: HTMLElement, rows: HTMLElement[], index: number, column: string): boolean {
  const row = rows[Math.max(0, Math.min(index, rows.length - 1))];
  if (!row) return false;
  const target = controlsOf(row).find((el) => columnOf(row, el) === column) ?? primaryOf(row);
  if (!target) return false;
  target.scrollIntoView({ block: "nearest" });
  return focusControl(view, rows.indexOf(row), row, target);
}

/** Focuses `control` of the view's row number `index`, and remembers where. */
function focusControl(view: HTMLElement, index: number, row: HTMLElement, control: HTMLElement): boolean {
  control.focus();
  remembered.set(view.dataset.navView ?? "", { row: index, column: columnOf(row, control) });
  return true;
}

/** Into the rows from outside them: where the focus was last in this view, else the first conversation (not a heading). */
function enter(view: HTMLElement, rows: HTMLElement[]): boolean {
  if (rows.length === 0) return false;
  const last = remembered.get(view.dataset.navView ?? "");
  if (last) return focus(view, rows, last.row, last.column);
  const first = rows.findIndex((row) => !row.hasAttribute("data-nav-heading"));
  return focus(view, rows, Math.max(first, 0), "primary");
}

/** The view's filter box (the search field), from the first row. */
function toFilters(view: HTMLElement): boolean {
  const search = view.querySelector<HTMLInputElement>(".view-filters input");
  if (!search) return false;
  search.focus();
  return true;
}

/** A key pressed outside any field while a list view is shown; whether it was one of the view's. */
export function listViewKey(key: string): boolean {
  const view = listView();
  if (!view) return false;
  const rows = rowsOf(view);
  const active = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  // An open menu keeps its own keys; so does another part of the page (a sidebar link) that has the focus.
  if (active?.closest("[role=menu]")) return false;
  if (active && active !== document.body && !view.contains(active)) return false;
  const row = active?.closest<HTMLElement>(ROW);
  const at = row ? rows.indexOf(row) : -1;
  const control = row && active ? (controlsOf(row).find((el) => el === active || el.contains(active)) ?? primaryOf(row)) : undefined;
  const column = row && control ? columnOf(row, control) : "primary";
  switch (key) {
    case "ArrowDown":
    case "J":
      return at === -1 ? enter(view, rows) : focus(view, rows, at + 1, column);
    case "ArrowUp":
    case "K":
      if (at === -1) return enter(view, rows);
      return at === 0 ? toFilters(view) : focus(view, rows, at - 1, column);
    case "ArrowLeft":
    case "H":
    case "ArrowRight":
    case "L": {
      if (!row || !control) return at === -1 && enter(view, rows);
      const controls = controlsOf(row);
      const step = key === "ArrowLeft" || key === "H" ? -1 : 1;
      const next = controls[(controls.indexOf(control) + step + controls.length) % controls.length];
      return !!next && focusControl(view, at, row, next);
    }
  }
  return false;
}

/** ↓ or Esc in a list view's filter box: back to its rows (false when the key is not that or there are none). */
export function listViewFilterKey(key: string, target: HTMLElement): boolean {
  if (key !== "ArrowDown" && key !== "Escape") return false;
  const view = target.closest<HTMLElement>("[data-nav-view]");
  // The filter box only: the view's <select> keeps its arrows.
  if (!view || !(target instanceof HTMLInputElement) || !target.closest(".view-filters")) return false;
  return enter(view, rowsOf(view));
}
