import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import type { MultipartFile } from "@fastify/multipart";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { SpooledFile } from "./mount.js";

/**
 * How multipart file parts are read: into memory for most endpoints (custom emoji), or, for
 * routes whose config says `spoolFiles` (uploads), streamed to a temporary file under
 * `<dataDir>/uploads/tmp` that is removed once the response is sent, whatever happened.
 */
const spooled = new WeakMap<FastifyRequest, string[]>();

export function multipartFileHandler(dataDir: string) {
  const spoolDir = path.join(dataDir, "uploads", "tmp");
  return async function onFile(this: FastifyRequest, part: MultipartFile): Promise<void> {
    const config = this.routeOptions.config as { spoolFiles?: boolean } | undefined;
    if (!config?.spoolFiles) {
      await part.toBuffer();
      return;
    }
    await mkdir(spoolDir, { recursive: true });
    const file = path.join(spoolDir, randomBytes(16).toString("hex"));
    const list = spooled.get(this) ?? [];
    list.push(file);
    spooled.set(this, list);
    let size = 0;
    part.file.on("data", (chunk: Buffer) => (size += chunk.length));
    await pipeline(part.file, createWriteStream(file, { flags: "wx" }));
    const spool: SpooledFile = { path: file, size, truncated: part.file.truncated };
    (part as unknown as { spool: SpooledFile }).spool = spool;
  };
}

export function removeSpooledFilesAfterResponse(app: FastifyInstance): void {
  // A callback hook: requests without spooled files (all but uploads) pass with no promise.
  app.addHook("onSend", (request, _reply, payload, done) => {
    const files = spooled.get(request);
    if (!files) return done(null, payload);
    Promise.all(files.map((file) => rm(file, { force: true }))).then(
      () => done(null, payload),
      (error: Error) => done(error),
    );
  });
}
