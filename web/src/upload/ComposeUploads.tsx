import { signal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import { filesOf, type UploadTarget, uploadError, uploadFiles, uploads } from "./uploads.js";
import "./uploads.css";

/** A file is dragged over the message area or the compose box. */
const dragging = signal(false);

const carriesFiles = (e: DragEvent) => [...(e.dataTransfer?.types ?? [])].includes("Files");

/** The paperclip: a file picker for one or more files. */
export function AttachButton({ target }: { target: UploadTarget }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" class="attach-button" title="Upload files" aria-label="Upload files" onClick={() => input.current?.click()}>
        <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
          <path
            d="M16.5 6.5v10a4.5 4.5 0 0 1-9 0V5a3 3 0 0 1 6 0v10.5a1.5 1.5 0 0 1-3 0V6.5"
            fill="none"
            stroke="currentColor"
            stroke-width="1.8"
            stroke-linecap="round"
          />
        </svg>
      </button>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        aria-label="Files to upload"
        onChange={(e) => {
          uploadFiles(filesOf({ files: e.currentTarget.files } as DataTransfer), target);
          e.currentTarget.value = "";
        }}
      />
    </>
  );
}

/** The textarea's paste handler: pasted files (a screenshot, copied files) are uploaded. */
export function pasteFiles(e: ClipboardEvent, target: UploadTarget): void {
  const files = filesOf(e.clipboardData);
  if (files.length === 0) return;
  e.preventDefault();
  uploadFiles(files, target);
}

/**
 * Files dropped anywhere on the main column (messages or compose box) are uploaded into the
 * compose text; while files are dragged over it, the compose box shows where they will go.
 */
export function useDropTarget(target: UploadTarget): void {
  useEffect(() => {
    const inMain = (e: DragEvent) => e.target instanceof Element && e.target.closest(".main") !== null;
    const over = (e: DragEvent) => {
      if (!carriesFiles(e) || !inMain(e)) return;
      e.preventDefault();
      e.dataTransfer!.dropEffect = "copy";
      dragging.value = true;
    };
    const leave = (e: DragEvent) => {
      if (e.relatedTarget === null || !(e.relatedTarget instanceof Element) || !e.relatedTarget.closest(".main")) dragging.value = false;
    };
    const drop = (e: DragEvent) => {
      dragging.value = false;
      if (!carriesFiles(e) || !inMain(e)) return;
      e.preventDefault();
      uploadFiles(filesOf(e.dataTransfer), target);
    };
    window.addEventListener("dragover", over);
    window.addEventListener("dragleave", leave);
    window.addEventListener("drop", drop);
    return () => {
      window.removeEventListener("dragover", over);
      window.removeEventListener("dragleave", leave);
      window.removeEventListener("drop", drop);
    };
  }, [target]);
}

export const isDragging = () => dragging.value;

function percent(loaded: number, total: number): number {
  return total === 0 ? 100 : Math.min(100, Math.floor((loaded / total) * 100));
}

/** Each upload under way with its progress, and the last failure. */
export function UploadProgress() {
  const list = uploads.value;
  return (
    <>
      {list.length > 0 && (
        <ul class="upload-progress" aria-label="Uploads">
          {list.map((u) => (
            <li key={u.id} data-method={u.method}>
              <span class="upload-name">{u.name}</span>
              <progress max={100} value={percent(u.loaded, u.total)} aria-label={`Uploading ${u.name}`} />
              <span class="upload-percent">{percent(u.loaded, u.total)}%</span>
              <button type="button" class="link" aria-label={`Cancel uploading ${u.name}`} onClick={u.cancel}>
                Cancel
              </button>
            </li>
          ))}
        </ul>
      )}
      {uploadError.value && (
        <div class="error upload-error" role="alert">
          {uploadError.value}{" "}
          <button type="button" class="link" onClick={() => (uploadError.value = "")}>
            Dismiss
          </button>
        </div>
      )}
    </>
  );
}
