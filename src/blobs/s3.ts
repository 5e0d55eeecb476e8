import { openAsBlob } from "node:fs";
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { setTimeout as sleep } from "node:timers/promises";
import { AwsClient } from "aws4fetch";
import { type BlobStorage, isSafeBlobKey, type StoredBlob } from "./storage.js";

export interface S3Settings {
  /** e.g. https://s3.eu-west-1.amazonaws.com or http://127.0.0.1:9000 (path-style requests). */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /**
   * Internal, for tests: bytes per part of a multipart upload (default 64 MiB). A file larger
   * than one part is uploaded in parts. S3 wants every part but the last to be at least 5 MiB.
   */
  partSize?: number;
}

/** 64 MiB parts: 10,000 parts (S3's most) make 640 GiB, and a failed part costs little to send again. */
const DEFAULT_PART_SIZE = 64 * 1024 * 1024;
/** A part that fails for a network error, a 5xx or a 429 is sent again, this many times in all. */
const PART_ATTEMPTS = 3;

/**
 * Blobs in an S3-compatible bucket (AWS S3, MinIO, Ceph, R2…), with Signature V4 requests
 * made by aws4fetch. Keys are the same as on disk; a key isSafeBlobKey refuses is never sent.
 * Objects are private: files are always served through Parley, which checks access first.
 * A file larger than one part (data exports, large uploads; S3 takes at most 5 GB in one PUT)
 * is sent as a multipart upload, streamed from the file part by part.
 */
export class S3BlobStorage implements BlobStorage {
  private readonly client: AwsClient;
  private readonly base: string;
  private readonly partSize: number;

  constructor(settings: S3Settings) {
    this.client = new AwsClient({
      accessKeyId: settings.accessKeyId,
      secretAccessKey: settings.secretAccessKey,
      region: settings.region,
      service: "s3",
      retries: 0,
    });
    this.base = `${settings.endpoint.replace(/\/+$/, "")}/${encodeURIComponent(settings.bucket)}`;
    this.partSize = settings.partSize ?? DEFAULT_PART_SIZE;
  }

  private url(key: string): string {
    if (!isSafeBlobKey(key)) throw new Error(`refusing blob key: ${JSON.stringify(key)}`);
    return `${this.base}/${key.split("/").map(encodeURIComponent).join("/")}`;
  }

  private async put(key: string, body: Blob | Uint8Array<ArrayBuffer>): Promise<void> {
    const res = await this.client.fetch(this.url(key), { method: "PUT", body, headers: { "Content-Type": "application/octet-stream" } });
    if (!res.ok) throw new Error(`S3 PUT ${key} failed: ${res.status} ${await res.text()}`);
    await res.body?.cancel();
  }

  async putFile(key: string, localPath: string): Promise<void> {
    const file = await openAsBlob(localPath);
    if (file.size <= this.partSize) await this.put(key, file);
    else await this.putInParts(key, file);
  }

  /**
   * S3's multipart upload: CreateMultipartUpload, one UploadPart per part read from the file,
   * CompleteMultipartUpload. On any failure the upload is aborted, so no parts stay in the bucket.
   */
  private async putInParts(key: string, file: Blob): Promise<void> {
    const url = this.url(key);
    const created = await this.client.fetch(`${url}?uploads`, { method: "POST", headers: { "Content-Type": "application/octet-stream" } });
    const createdText = await created.text();
    const uploadId = created.ok ? xmlElement(createdText, "UploadId") : undefined;
    if (!uploadId) throw new Error(`S3 CreateMultipartUpload ${key} failed: ${created.status} ${createdText}`);
    const withUpload = (query: string) => `${url}?${query}uploadId=${encodeURIComponent(uploadId)}`;
    try {
      const etags: string[] = [];
      for (let start = 0; start < file.size; start += this.partSize) {
        const part = file.slice(start, Math.min(start + this.partSize, file.size));
        etags.push(await this.uploadPart(key, withUpload(`partNumber=${etags.length + 1}&`), part, etags.length + 1));
      }
      const parts = etags.map((etag, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${escapeXml(etag)}</ETag></Part>`);
      const body = `<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${parts.join("")}</CompleteMultipartUpload>`;
      const done = await this.client.fetch(withUpload(""), { method: "POST", body, headers: { "Content-Type": "application/xml" } });
      const doneText = await done.text();
      // S3 can answer 200 and still report the error in the body.
      if (!done.ok || !doneText.includes("<CompleteMultipartUploadResult")) {
        throw new Error(`S3 CompleteMultipartUpload ${key} failed: ${done.status} ${doneText}`);
      }
    } catch (error) {
      await this.client
        .fetch(withUpload(""), { method: "DELETE" })
        .then((res) => res.body?.cancel())
        .catch(() => {});
      throw error;
    }
  }

  /** One UploadPart, sent again after a network error, a 5xx or a 429; its ETag. */
  private async uploadPart(key: string, url: string, body: Blob, partNumber: number): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      let failure: string;
      let retriable = true;
      try {
        const res = await this.client.fetch(url, { method: "PUT", body, headers: { "Content-Type": "application/octet-stream" } });
        const etag = res.headers.get("etag");
        const text = await res.text();
        if (res.ok && etag) return etag;
        failure = `${res.status} ${text}`;
        retriable = res.status >= 500 || res.status === 429;
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
      }
      if (!retriable || attempt >= PART_ATTEMPTS) throw new Error(`S3 UploadPart ${partNumber} of ${key} failed: ${failure}`);
      await sleep(100 * 2 ** attempt);
    }
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

/** The text of the first `<name>` element of an S3 XML answer, entities decoded. */
function xmlElement(xml: string, name: string): string | undefined {
  const match = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
  return match?.[1]?.replace(/&(lt|gt|quot|apos|amp);/g, (m, e: string) => ({ lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" })[e] ?? m);
}

const escapeXml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
