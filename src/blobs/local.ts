import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { copyFile, link, mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { type BlobStorage, isSafeBlobKey, type StoredBlob } from "./storage.js";

/**
 * Blobs as files under one root directory. Every key is checked twice: as a string
 * (isSafeBlobKey) and, once resolved, as a path that must stay under the root, so no key can
 * read, write or delete anything outside it. Writes go to a temporary name, are fsynced and then
 * renamed, so a crash never leaves half a file under a real key.
 */
export class LocalBlobStorage implements BlobStorage {
  private readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** The absolute path for `key`, or undefined when the key is not one this storage accepts. */
  pathFor(key: string): string | undefined {
    if (!isSafeBlobKey(key)) return undefined;
    const full = path.resolve(this.root, key);
    return full.startsWith(this.root + path.sep) ? full : undefined;
  }

  private mustPath(key: string): string {
    const full = this.pathFor(key);
    if (!full) throw new Error(`refusing blob key outside the storage root: ${JSON.stringify(key)}`);
    return full;
  }

  /** A second name (hard link) for the caller's file, so nothing is copied; a copy across file systems. */
  async putFile(key: string, localPath: string): Promise<void> {
    const full = this.mustPath(key);
    await mkdir(path.dirname(full), { recursive: true });
    await syncFile(localPath);
    const temp = `${full}.${randomBytes(6).toString("hex")}.partial`;
    try {
      try {
        await link(localPath, temp);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
        await copyFile(localPath, temp);
        await syncFile(temp);
      }
      await rename(temp, full);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  async putBytes(key: string, data: Buffer): Promise<void> {
    const full = this.mustPath(key);
    await mkdir(path.dirname(full), { recursive: true });
    const temp = `${full}.${randomBytes(6).toString("hex")}.partial`;
    const handle = await open(temp, "wx");
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, full);
  }

  async get(key: string): Promise<StoredBlob | undefined> {
    const full = this.pathFor(key);
    if (!full) return undefined;
    try {
      const info = await stat(full);
      if (!info.isFile()) return undefined;
      return { size: info.size, body: createReadStream(full) };
    } catch {
      return undefined;
    }
  }

  async readAll(key: string): Promise<Buffer | undefined> {
    const full = this.pathFor(key);
    if (!full) return undefined;
    try {
      return await readFile(full);
    } catch {
      return undefined;
    }
  }

  async delete(key: string): Promise<void> {
    const full = this.pathFor(key);
    if (full) await rm(full, { force: true });
  }
}

async function syncFile(file: string): Promise<void> {
  const handle = await open(file, "r+");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
