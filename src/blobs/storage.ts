import type { Readable } from "node:stream";

/**
 * Where uploaded files live, behind one small interface: a local directory by default
 * (`<dataDir>/uploads/files`), or an S3-compatible bucket when PARLEY_S3_BUCKET is set. Keys are the attachments' path_ids (`<realm>/<xx>/<random>/<name>`)
 * and derived keys such as `thumbnail/<path_id>/<size>.webp`; every implementation refuses a key
 * that could name something outside its root.
 */
export interface StoredBlob {
  size: number;
  body: Readable;
}

export interface BlobStorage {
  /**
   * Stores a finished local file (a spooled multipart part, a tus upload, an export's tarball)
   * under `key`. The caller's file is left as it was; the caller removes it.
   */
  putFile(key: string, localPath: string): Promise<void>;
  /** Stores bytes under `key` (thumbnails). */
  putBytes(key: string, data: Buffer): Promise<void>;
  /** The stored bytes, or undefined when nothing is stored under `key`. */
  get(key: string): Promise<StoredBlob | undefined>;
  /** The whole stored object in memory (thumbnailing); undefined when missing. */
  readAll(key: string): Promise<Buffer | undefined>;
  /** Removes the object; removing a missing object is not an error. */
  delete(key: string): Promise<void>;
}

/** A key is a relative path of plain segments: no empty, "." or ".." segment, no backslash or NUL. */
export function isSafeBlobKey(key: string): boolean {
  if (key.length === 0 || key.length > 1024 || key.startsWith("/") || /[\\\u0000]/.test(key)) return false;
  return key.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..");
}
