import type { Config } from "../config.js";
import { LocalBlobStorage } from "./local.js";
import { S3BlobStorage } from "./s3.js";
import type { BlobStorage } from "./storage.js";

/** The configured storage: the S3-compatible bucket when PARLEY_S3_BUCKET is set, else the local directory. */
export function createBlobStorage(config: Config): BlobStorage {
  if (config.uploads.s3) return new S3BlobStorage(config.uploads.s3);
  return new LocalBlobStorage(`${config.dataDir}/uploads/files`);
}
