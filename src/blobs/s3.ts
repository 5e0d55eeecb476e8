import { openAsBlob } from "node:fs";
import { rm } from "node:fs/promises";
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { AwsClient } from "aws4fetch";
import { type BlobStorage, isSafeBlobKey, type StoredBlob } from "./storage.js";

export interface S3Settings {
  /** e.g. https://s3.eu-west-1.amazonaws.com or http://127.0.0.1:9000 (path-style requests). */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/**
 * Blobs in an S3-compatible bucket (AWS S3, MinIO, Ceph, R2…), with Signature V4 requests
 * made by aws4fetch. Keys are the same as on disk; a key isSafeBlobKey refuses is never sent.
 * Objects are private: files are always served through Parley, which checks access first.
 */
export class S3BlobStorage implements BlobStorage {
  private readonly client: AwsClient;
  private readonly base: string;

  constructor(settings: S3Settings) {
    this.client = new AwsClient({
      accessKeyId: settings.accessKeyId,
      secretAccessKey: settings.secretAccessKey,
      region: settings.region,
      service: "s3",
      retries: 0,
    });
    this.base = `${settings.endpoint.replace(/\/+$/, "")}/${encodeURIComponent(settings.bucket)}`;
  }

  private url(key: string): string {
    if (!isSafeBlobKey(key)) throw new Error(`refusing blob key: ${JSON.stringify(key)}`);
    return `${this.base}/${key.split("/").map(encodeURIComponent).join("/")}`;
  }

  private async put(key: string, body: Blob | Uint8Array<ArrayBuffer>): Promise<void> {
    const res = await this.client.fetch(this.url(key), { method: "PUT", body, headers: { "Content-Type": "application/octet-stream" } });
    if (!res.ok) throw new Error(`S3 PUT ${key} failed: ${res.status} ${await res.text()}`);
  }

  async putFile(key: string, localPath: string): Promise<void> {
    await this.put(key, await openAsBlob(localPath));
    await rm(localPath, { force: true });
  }

  async putBytes(key: string, data: Buffer): Promise<void> {
    await this.put(key, new Uint8Array(data));
  }

  async get(key: string): Promise<StoredBlob | undefined> {
    if (!isSafeBlobKey(key)) return undefined;
    const res = await this.client.fetch(this.url(key), { method: "GET" });
    if (res.status === 404) {
      await res.body?.cancel();
      return undefined;
    }
    if (!res.ok || !res.body) throw new Error(`S3 GET ${key} failed: ${res.status}`);
    return { size: Number(res.headers.get("content-length") ?? 0), body: Readable.fromWeb(res.body as WebReadableStream) };
  }

  async readAll(key: string): Promise<Buffer | undefined> {
    const blob = await this.get(key);
    if (!blob) return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of blob.body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async delete(key: string): Promise<void> {
    if (!isSafeBlobKey(key)) return;
    const res = await this.client.fetch(this.url(key), { method: "DELETE" });
    await res.body?.cancel();
    if (!res.ok && res.status !== 404) throw new Error(`S3 DELETE ${key} failed: ${res.status}`);
  }
}
