import { type ComponentChildren, render } from "preact";
import { useLayoutEffect, useRef } from "preact/hooks";
import { focusables } from "./modal.js";
import "./menus.css";

/**
 * A modal dialog (edit history, read receipts, message source, confirmations): a native <dialog>
 * opened with showModal, so the page behind is inert. Focus moves into it, Tab cycles inside it,
 * Esc or "Close" closes it and focus returns to what had it before (the menu's button). Mounted
 * on its own under <body>, so it outlives the row or menu that opened it.
 */
export function openDialog(title: string, body: (close: () => void) => ComponentChildren, className = "", onClosed?: () => void): void {
  const opener = document.activeElement as HTMLElement | null;
  const host = document.createElement("div");
  document.body.append(host);
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    render(null, host);
    host.remove();
    if (opener?.isConnected) opener.focus();
    onClosed?.();
  };
  render(
    <ModalDialog title={title} className={className} onClose={close}>
      {body(close)}
    </ModalDialog>,
    host,
  );
}

let ids = 0;

function ModalDialog({ title, className, onClose, children }: { title: string; className: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  const headingId = useRef(`modal-title-${++ids}`);
  useLayoutEffect(() => {
    const dialog = ref.current!;
    dialog.showModal();
    // The first control of the body, else the close button (showModal's own choice is the first in the DOM).
    (
      dialog.querySelector<HTMLElement>(".modal-body [autofocus], .modal-body button, .modal-body textarea") ??
      dialog.querySelector<HTMLElement>(".modal-close")
    )?.focus();
  }, []);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "Escape") {
      // Closed here, not by the app's Esc handler (which would close an overlay behind).
      e.preventDefault();
      e.stopPropagation();
      onClose();
    } else if (e.key === "Tab") {
      const focusable = focusables(ref.current!);
      if (focusable.length === 0) return;
      const first = focusable[0];
      const last = focusable.at(-1)!;
      if (e.shiftKey && document.activeElement === first) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && document.activeElement === last) {
        e.preventDefault();
        first?.focus();
      }
    }
    e.stopPropagation();
  };
  return (
    // eslint-disable-next-line jsx-a11y-x/no-noninteractive-element-interactions -- a modal dialog owns Esc and keeps Tab inside it (WAI-ARIA dialog pattern)
    <dialog
      ref={ref}
      class={`modal ${className}`}
      aria-labelledby={headingId.current}
      onKeyDown={onKeyDown}
      onCancel={(e) => (e.preventDefault(), onClose())}
      onClick={(e) => e.target === ref.current && onClose()}
    >
      <div class="modal-inner">
        <header class="modal-head">
          <h2 id={headingId.current}>{title}</h2>
          <button type="button" class="modal-close" aria-label="Close" onClick={onClose}>
            ✕
          </button>
        </header>
        <div class="modal-body">{children}</div>
      </div>
    </dialog>
  );
}

/** Asks before something that cannot be undone (Zulip's confirm dialogs); resolves to the answer. */
export function confirmDialog(title: string, text: string, yes: string): Promise<boolean> {
  return new Promise((resolve) => {
    let answer = false;
    openDialog(
      title,
      (close) => (
        <>
          <p>{text}</p>
          <div class="modal-buttons">
            <button type="button" class="primary" onClick={() => ((answer = true), close())}>
              {yes}
            </button>
            <button type="button" onClick={close}>
              Cancel
            </button>
          </div>
        </>
      ),
      "confirm",
      () => resolve(answer),
    );
  });
}
