import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { escapeHtml } from "../util/html.js";
import { jsonForScriptElement, STATE_ELEMENT_ID } from "./webAppState.js";

/**
 * The web app's built files (Vite's output in dist/web/, scripts/build.mjs), read once at start
 * and served from memory, with the gzip and brotli copies the build writes beside each text
 * file. The manifest names the entry script, its CSS and the chunks it imports, which
 * the shell preloads.
 */
export interface WebAppAssets {
  files: Map<string, WebAppFile>;
  entry: { script: string; css: string[]; preload: string[] } | null;
}

/** A built file, with its precompressed copies (`name.gz`, `name.br`) where the build made them. */
export interface WebAppFile {
  type: string;
  data: Buffer;
  gzip?: Buffer;
  br?: Buffer;
}

export type ContentEncoding = "br" | "gzip";

/**
 * The encoding to send of those `available`, by the request's Accept-Encoding: brotli before gzip
 * (smaller), neither when the client gives it q=0 or does not name it (`*` names both).
 */
export function preferredEncoding(
  acceptEncoding: string | string[] | undefined,
  available: readonly ContentEncoding[] = ["br", "gzip"],
): ContentEncoding | null {
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(",") : (acceptEncoding ?? "");
  const q = new Map<string, number>();
  for (const part of header.split(",")) {
    const [token, ...params] = part.trim().toLowerCase().split(";");
    if (!token) continue;
    const weight = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    q.set(token, weight === undefined ? 1 : Number(weight));
  }
  const weightOf = (name: string) => q.get(name) ?? (name === "gzip" ? q.get("x-gzip") : undefined) ?? q.get("*") ?? 0;
  for (const encoding of available) if (weightOf(encoding) > 0) return encoding;
  return null;
}

const PUBLIC_PATH = "/static/webapp/";
const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".map": "application/json",
};

/** dist/web next to the server bundle (dist/cli.js), or from src/http/ when run through tsx. */
function webDir(): string | null {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const candidate of [path.join(here, "web"), path.join(here, "..", "..", "dist", "web")]) {
    if (fs.existsSync(path.join(candidate, ".vite", "manifest.json"))) return candidate;
  }
  return null;
}

export function webAppAssets(): WebAppAssets {
  const dir = webDir();
  const files = new Map<string, WebAppFile>();
  if (!dir) return { files, entry: null };
  const names = new Set(fs.readdirSync(dir));
  const read = (name: string) => (names.has(name) ? fs.readFileSync(path.join(dir, name)) : undefined);
  for (const name of names) {
    const type = TYPES[path.extname(name)];
    if (type) files.set(name, { type, data: read(name)!, gzip: read(`${name}.gz`), br: read(`${name}.br`) });
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, ".vite", "manifest.json"), "utf8")) as Record<
    string,
    { file: string; css?: string[]; imports?: string[]; isEntry?: boolean }
  >;
  const entryChunk = Object.values(manifest).find((chunk) => chunk.isEntry);
  if (!entryChunk) return { files, entry: null };
  const preload = (entryChunk.imports ?? []).map((key) => manifest[key]?.file).filter((file): file is string => !!file);
  return { files, entry: { script: entryChunk.file, css: entryChunk.css ?? [], preload } };
}

/**
 * The URL of KaTeX's stylesheet as the web app's build bundles it (the CSS chunk of
 * web/src/katexStyle.ts, whose fonts are built files beside it), for pages outside the app that
 * show rendered math (the archive); null when the app is not built. Reads only the manifest.
 */
export function katexStylesheetUrl(): string | null {
  const dir = webDir();
  if (!dir) return null;
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, ".vite", "manifest.json"), "utf8")) as Record<string, { file: string; css?: string[] }>;
  const chunk = manifest["src/katexStyle.ts"];
  const file = chunk?.file.endsWith(".css") ? chunk.file : chunk?.css?.[0];
  return file ? `${PUBLIC_PATH}${file}` : null;
}

/**
 * The HTML of `/` for a signed-in user (or a visitor, `visitor` set: no session, no CSRF token,
 * user id 0, and the app starts in its read-only visitor mode), in two parts: `head` (the app's assets, the session's
 * CSRF token and a skeleton) is sent at once so the browser fetches the script while the server
 * builds the state; `tail(state)` follows with the /register answer as a JSON data element
 * (not a script: the Content-Security-Policy allows none inline), or without it (state null).
 * The script is `async`: it runs as soon as it is loaded, before the state has arrived, and
 * starts fetching the first messages meanwhile.
 */
export function webAppShell(
  assets: WebAppAssets,
  page: { csrfToken: string; userId: number; visitor?: boolean },
): { head: string; tail: (state: string | null) => string } {
  const head: string[] = [
    `<meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<meta name="color-scheme" content="light dark">`,
    `<meta name="parley-csrf-token" content="${escapeHtml(page.csrfToken)}">`,
    `<meta name="parley-user-id" content="${page.userId}">`,
    ...(page.visitor ? [`<meta name="parley-visitor" content="1">`] : []),
    `<title>Parley</title>`,
    `<link rel="icon" href="data:,">`,
  ];
  let body = `<div id="app"><p class="boot">Loading…</p></div>`;
  if (assets.entry) {
    for (const css of assets.entry.css) head.push(`<link rel="stylesheet" href="${PUBLIC_PATH}${css}">`);
    for (const chunk of assets.entry.preload) head.push(`<link rel="modulepreload" href="${PUBLIC_PATH}${chunk}">`);
    head.push(`<script type="module" async src="${PUBLIC_PATH}${assets.entry.script}"></script>`);
  } else {
    head.push(`<link rel="stylesheet" href="/static/pages.css">`);
    body = `<main class="card"><h1>The web app is not built</h1><p>Run <code>npm install</code> (or <code>node scripts/build.mjs</code>) and restart Parley.</p></main>`;
  }
  return {
    head: `<!DOCTYPE html>\n<html lang="en"><head>${head.join("")}</head><body>${body}`,
    tail: (state) =>
      (state === null || !assets.entry ? "" : `<script type="application/json" id="${STATE_ELEMENT_ID}">${jsonForScriptElement(state)}</script>`) +
      `</body></html>\n`,
  };
}
