import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";

/** What the final PATCH of a tus upload answered, and to whom. */
export interface FinishedUpload {
  ownerId: number;
  size: number;
  url: string;
  filename: string;
}

const ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The answers of finished tus uploads, one small file per upload id in a directory, kept for
 * `keepMs`: a client whose final PATCH answer was lost (a dropped connection, a restart) asks
 * where the upload stands with HEAD and sends the final (empty) PATCH again, and gets the same
 * `{url, filename}` instead of a 404 for an upload whose staged bytes are already gone.
 * Files, not memory, so the answer outlives a restart of the server as the staged uploads do.
 */
export class FinishedUploads {
  constructor(
    private readonly directory: string,
    private readonly keepMs: number,
  ) {}

  private file(id: string): string | null {
    return ID_PATTERN.test(id) ? path.join(this.directory, `${id}.json`) : null;
  }

  async get(id: string): Promise<FinishedUpload | undefined> {
    const file = this.file(id);
    if (!file) return undefined;
    try {
      const [text, info] = await Promise.all([readFile(file, "utf8"), stat(file)]);
      if (Date.now() - info.mtimeMs > this.keepMs) return undefined;
      return JSON.parse(text) as FinishedUpload;
    } catch {
      return undefined;
    }
  }

  /** Written before the final PATCH is answered (a temporary file renamed, so never read half-written). */
  async record(id: string, upload: FinishedUpload): Promise<void> {
    const file = this.file(id);
    if (!file) return;
    await mkdir(this.directory, { recursive: true });
    const temporary = `${file}.tmp`;
    await writeFile(temporary, JSON.stringify(upload));
    await rename(temporary, file);
  }

  /** Removes the answers older than `keepMs`. */
  async sweep(): Promise<void> {
    const names = await readdir(this.directory).catch(() => [] as string[]);
    for (const name of names) {
      const file = path.join(this.directory, name);
      const info = await stat(file).catch(() => undefined);
      if (info && Date.now() - info.mtimeMs > this.keepMs) await rm(file, { force: true });
    }
  }
}
