import { signal } from "@preact/signals";
import { answerError, ApiError, type Envelope } from "../api.js";
import { tusUpload, TusError } from "./tus.js";

/**
 * Files attached in the compose box (paperclip, paste, drag and drop), as Zulip's web app does:
 * each upload puts `[Uploading name…]()` at the cursor, which becomes `[name](/user_uploads/…)`
 * when the upload completes and is removed, with an error shown, when it fails. Files from
 * TUS_THRESHOLD bytes go through tus (in chunks, resumed after a dropped connection), smaller
 * ones in one multipart POST /json/user_uploads. Progress is in the `uploads` signal.
 */
const TUS_THRESHOLD = 5 * 1024 * 1024;

export interface Upload {
  id: number;
  name: string;
  loaded: number;
  total: number;
  method: "multipart" | "tus";
  cancel: () => void;
}

/** Uploads under way, in the order they started. */
export const uploads = signal<Upload[]>([]);
/** The last upload failure (cleared by the next upload), for the compose box's error line. */
export const uploadError = signal("");
/** max_file_upload_size_mib of /register (null until known). */
export const uploadLimitMib = signal<number | null>(null);

/** Where uploads write their Markdown: the compose box's text and its textarea. */
export interface UploadTarget {
  get: () => string;
  set: (text: string) => void;
  textarea: () => HTMLTextAreaElement | null;
}

let nextId = 1;

function csrfToken(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="parley-csrf-token"]')?.content ?? "";
}

/** POST /json/user_uploads by XMLHttpRequest, for its upload progress. */
function multipartUpload(file: File, onProgress: (loaded: number) => void, signal: AbortSignal): Promise<{ url: string; filename: string }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/json/user_uploads");
    xhr.setRequestHeader("X-CSRFToken", csrfToken());
    xhr.upload.onprogress = (e) => onProgress(e.loaded);
    signal.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.onload = () => {
      let body: (Envelope & { url?: string; filename?: string }) | null = null;
      try {
        body = JSON.parse(xhr.responseText) as Envelope & { url?: string; filename?: string };
      } catch {
        // not JSON
      }
      if (xhr.status === 200 && body?.result === "success") resolve({ url: body.url!, filename: body.filename! });
      else reject(answerError(body, xhr.status));
    };
    xhr.onerror = () => reject(new ApiError("The connection failed.", 0, "NETWORK"));
    xhr.onabort = () => reject(new DOMException("Upload cancelled", "AbortError"));
    const form = new FormData();
    form.append("file", file, file.name);
    xhr.send(form);
  });
}

/** Zulip's placeholder while a file uploads. */
const placeholderFor = (name: string) => `[Uploading ${name}…]()`;
/** The Markdown link to an uploaded file (brackets dropped from the name, as Zulip does). */
const linkFor = (name: string, url: string) => `[${name.replaceAll("[", "").replaceAll("]", "")}](${url})`;

function insertAtCursor(target: UploadTarget, text: string): void {
  const el = target.textarea();
  const value = target.get();
  const start = el && document.activeElement === el ? el.selectionStart : value.length;
  const end = el && document.activeElement === el ? el.selectionEnd : value.length;
  const before = value.slice(0, start);
  const spaced = before === "" || /\s$/.test(before) ? text : ` ${text}`;
  const next = before + spaced + value.slice(end);
  target.set(next);
  if (el) {
    el.value = next;
    el.focus();
    el.selectionStart = el.selectionEnd = start + spaced.length;
  }
}

/** Replaces the first occurrence of `from` (the placeholder) in the text, keeping the cursor after it. */
function replaceText(target: UploadTarget, from: string, to: string): void {
  const value = target.get();
  const at = value.indexOf(from);
  if (at < 0) return;
  const el = target.textarea();
  const cursor = el ? el.selectionStart : -1;
  const next = value.slice(0, at) + to + value.slice(at + from.length);
  target.set(next);
  if (el) {
    el.value = next;
    if (cursor >= at + from.length) el.selectionStart = el.selectionEnd = cursor + to.length - from.length;
  }
}

function describeError(name: string, error: unknown): string {
  const why = error instanceof ApiError || error instanceof TusError ? error.message : "the connection failed";
  return `Uploading ${name} failed: ${why}`;
}

/** Starts uploading `files` into the compose text. */
export function uploadFiles(files: Iterable<File>, target: UploadTarget): void {
  uploadError.value = "";
  for (const file of files) void uploadOne(file, target);
}

async function uploadOne(file: File, target: UploadTarget): Promise<void> {
  const limit = uploadLimitMib.value;
  if (limit !== null && file.size > limit * 1024 * 1024) {
    uploadError.value = `${file.name} is larger than the maximum file size of ${limit} MiB.`;
    return;
  }
  const controller = new AbortController();
  const id = nextId++;
  const method = file.size >= TUS_THRESHOLD ? "tus" : "multipart";
  const entry: Upload = { id, name: file.name, loaded: 0, total: file.size, method, cancel: () => controller.abort() };
  uploads.value = [...uploads.value, entry];
  const progress = (loaded: number) => (uploads.value = uploads.value.map((u) => (u.id === id ? { ...u, loaded } : u)));
  const placeholder = placeholderFor(file.name);
  insertAtCursor(target, placeholder);
  try {
    const { url } =
      method === "tus" ? await tusUpload(file, { signal: controller.signal, onProgress: progress }) : await multipartUpload(file, progress, controller.signal);
    replaceText(target, placeholder, linkFor(file.name, url));
  } catch (error) {
    replaceText(target, placeholder, "");
    if (!(error instanceof DOMException && error.name === "AbortError")) uploadError.value = describeError(file.name, error);
  } finally {
    uploads.value = uploads.value.filter((u) => u.id !== id);
  }
}

/** The files a paste or drop carries (none for plain text). */
export function filesOf(data: DataTransfer | null): File[] {
  return data ? [...data.files] : [];
}
