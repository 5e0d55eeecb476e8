#!/usr/bin/env node
// Builds dist/cli.js, the JavaScript that `npm start` runs (scripts/start.mjs): src/cli.ts and the
// pure-JavaScript packages it imports, bundled by esbuild into one ES module. Loading that one
// file instead of transpiling ~200 TypeScript files through tsx and resolving ~800 package files
// is what makes the server start in well under a second.
//
// `node scripts/build.mjs` builds (npm runs it as `prepare` after `npm install`); isBuilt() tells
// whether an input changed since the last build. The inputs are the files esbuild read (recorded
// from its metafile), this script and package.json; a change of size or modification time of any
// of them, or a missing one, means a rebuild.
//
// Tests, `npm run dev`, `npx parley` and the scripts keep running src/ through tsx.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

const ROOT = path.resolve(import.meta.dirname, "..");
const DIST = path.join(ROOT, "dist");
const BUILD_INFO = path.join(DIST, "build-info.json");

/**
 * Left out of the bundle and loaded from node_modules at run time: native addons, and packages
 * that src/ loads only on first use (bundled, they would be parsed at every start).
 */
const EXTERNAL = [
  "better-sqlite3",
  "sharp",
  "pg-native",
  "@tus/server",
  "@tus/file-store",
  "nodemailer",
  "nats",
  "katex",
  "highlight.js",
  "markdown-it",
  "re2js",
  "smtp-server",
  "mailparser",
  "pg",
  "mime-types",
  "htmlparser2",
  "tar",
  "yauzl",
  "@streamparser/json",
  "cli-progress",
  "emoji-datasource-google",
  "emoji-datasource-twitter",
  // Sign-in: SAML (with the XML packages under it), LDAP, OpenID Connect and OAuth, two-factor
  // apps, and the sessions list's browser names; most servers use few of them, many none.
  "@node-saml/node-saml",
  "ldapts",
  "openid-client",
  "otpauth",
  "qrcode",
  "bowser",
  // Fastify's JSON-schema compilers, which Parley never builds (src/app.ts: parameters are checked
  // with zod): ~0.45 MB of the bundle's source, and an idle server's ~1 MiB once loaded. (Fastify's
  // error serializer still requires fast-json-stringify's small lib/serializer.js at start.)
  "ajv",
  "ajv-formats",
  "@fastify/ajv-compiler",
  "@fastify/fast-json-stringify-compiler",
  "fast-json-stringify",
  // Fastify's inject(), which it requires on first use: the web app's page state (src/http/webAppState.ts).
  "light-my-request",
];

/**
 * Modules that bundled packages require() as they load but use only for features Parley leaves
 * off. Such a require() returns a stand-in that loads the module the first time anything is read
 * from it. Node's built-ins: Fastify's lib/server.js requires https and http2 for its https and
 * http2 options, prom-client requires https for its push gateway; Parley's own code loads them on
 * first use (util/lazy.ts). With TLS under them they are ~0.5 MiB of an idle server's heap and of
 * the node binary's pages (2.2 MiB in an otherwise empty node). Packages (loaded from node_modules
 * then): @opentelemetry/api, which prom-client's process CPU metric requires for exemplars that
 * Parley does not turn on (44 KB of the bundle's source).
 */
const LAZY_BUILTINS = /^(node:)?(https|http2)$/;
const LAZY_PACKAGES = /^@opentelemetry\/api$/;

function lazyRequires() {
  const standIn = (target) => `let loaded;
const load = () => (loaded ??= require(${JSON.stringify(target)}));
module.exports = new Proxy({}, {
  get: (_, key) => load()[key],
  has: (_, key) => key in load(),
  ownKeys: () => Reflect.ownKeys(load()),
  getOwnPropertyDescriptor: (_, key) => {
    const descriptor = Reflect.getOwnPropertyDescriptor(load(), key);
    return descriptor && { ...descriptor, configurable: true };
  },
});
`;
  return {
    name: "parley-lazy-requires",
    setup(build) {
      const lazy = new RegExp(`${LAZY_BUILTINS.source}|${LAZY_PACKAGES.source}`);
      build.onResolve({ filter: lazy }, (args) => {
        // The stand-in's own require() is the real module's.
        if (args.namespace === "lazy-require") return { path: args.path, external: true };
        if (args.kind !== "require-call") return undefined;
        const target = LAZY_BUILTINS.test(args.path) ? `node:${args.path.replace(/^node:/, "")}` : args.path;
        return { path: target, namespace: "lazy-require" };
      });
      build.onLoad({ filter: /.*/, namespace: "lazy-require" }, (args) => ({ loader: "js", contents: standIn(args.path) }));
    },
  };
}

/** Files next to a source module that it reads at run time (createRequire relative to itself). */
const ASSETS = [
  ["src/lib/emojiTable.json", "emojiTable.json"],
  ["src/http/assets/zulip-emoji.png", "assets/zulip-emoji.png"],
];

function fingerprint(inputs) {
  const hash = crypto.createHash("sha256");
  for (const file of inputs) {
    let stat;
    try {
      stat = fs.statSync(path.join(ROOT, file));
    } catch {
      stat = null;
    }
    hash.update(`${file}\0${stat ? `${stat.size}\0${stat.mtimeMs}` : "missing"}\n`);
  }
  return hash.digest("hex");
}

function writeAtomically(file, contents) {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, contents);
  fs.renameSync(temporary, file);
}

/** Every file under web/ (the web app's sources) and src/contract/ (the API contract it shares with the server), relative to the repository. */
function webInputs() {
  const out = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else out.push(rel);
    }
  };
  walk("web");
  walk("src/contract");
  return out;
}

/**
 * The web app (web/src, TypeScript + Preact) built by Vite into dist/web/: hashed file names and
 * a manifest the server reads (src/http/webAppAssets.ts) to link the entry script and its CSS.
 */
async function buildWeb() {
  const vite = await import("vite");
  await vite.build({
    root: path.join(ROOT, "web"),
    configFile: false,
    envDir: false,
    publicDir: false,
    logLevel: "warn",
    base: "/static/webapp/",
    oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
    build: {
      outDir: path.join(DIST, "web"),
      emptyOutDir: true,
      manifest: true,
      assetsDir: "",
      target: "es2022",
      modulePreload: { polyfill: false },
      // Fonts stay files: the page's policy (font-src 'self') allows no data: font.
      assetsInlineLimit: (file) => (file.endsWith(".woff2") ? false : undefined),
      rollupOptions: { input: path.join(ROOT, "web/src/main.tsx") },
    },
    plugins: [katexWoff2Only()],
  });
  precompress(path.join(DIST, "web"));
  return webInputs();
}

/**
 * KaTeX's stylesheet names each font three times (woff2, woff, ttf); every browser the app supports
 * takes woff2, so the other two are dropped before Vite copies the fonts the CSS names into dist/web
 * (the server keeps dist/web in memory: 300 KB of woff2 instead of 1.3 MB of fonts).
 */
function katexWoff2Only() {
  return {
    name: "parley-katex-woff2-only",
    enforce: "pre",
    transform(code, id) {
      if (!/[\\/]katex[\\/]dist[\\/]katex(\.min)?\.css(\?|$)/.test(id)) return null;
      return code.replace(/,\s*url\([^)]*\.(woff|ttf)\)\s*format\("(woff|truetype)"\)/g, "");
    },
  };
}

/** What the server sends compressed: text. Images and woff2 fonts are compressed already. */
const COMPRESSIBLE = /\.(js|css|svg|map|json|html)$/;

/**
 * Writes `<file>.gz` and `<file>.br` beside every compressible file of `dir`, at the highest
 * levels (done once at build, so the server sends them without spending CPU on each request,
 * as nginx's gzip_static does).
 */
function precompress(dir) {
  for (const name of fs.readdirSync(dir)) {
    if (!COMPRESSIBLE.test(name)) continue;
    const data = fs.readFileSync(path.join(dir, name));
    fs.writeFileSync(path.join(dir, `${name}.gz`), zlib.gzipSync(data, { level: 9 }));
    fs.writeFileSync(
      path.join(dir, `${name}.br`),
      zlib.brotliCompressSync(data, {
        params: {
          [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length,
          [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        },
      }),
    );
  }
}

/**
 * The bundle with every non-ASCII character written as a \u escape. esbuild escapes them in
 * strings but leaves them in comments and regular expressions, and one such character makes V8
 * hold the whole source as a two-byte string, twice its size, for as long as the server runs.
 * An escape means the same character in strings, templates, regular expressions and identifiers
 * (the bundle uses no String.raw on such text); in comments it is only text. Source-map columns
 * move on the few lines concerned.
 */
function asciiOnly(code) {
  return code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Bundles src/cli.ts (and the SQLite worker's src/db/sqliteWorker.ts) into dist/ and the web app into dist/web/; returns the number of input files. */
export async function build() {
  const web = await buildWeb();
  const esbuild = await import("esbuild");
  try {
    const result = await esbuild.build({
      absWorkingDir: ROOT,
      // The server, and the entry point of its SQLite worker threads (src/db/sqliteThreads.ts loads
      // dist/sqliteWorker.js beside dist/cli.js).
      entryPoints: { cli: "src/cli.ts", sqliteWorker: "src/db/sqliteWorker.ts" },
      outdir: "dist",
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      external: EXTERNAL,
      plugins: [lazyRequires()],
      // A module that src/ imports with import() only (the integrations, integrations/load.ts) is a
      // chunk of its own beside cli.js (dist/<name>-<hash>.js), read on first use rather than at
      // every start; the code that cli.js and sqliteWorker.js share is one too (dist/chunk-<hash>.js).
      splitting: true,
      // Bundled CommonJS packages require() Node's built-ins and the external packages.
      banner: { js: 'import { createRequire as __parleyCreateRequire } from "node:module";\nconst require = __parleyCreateRequire(import.meta.url);' },
      // Without comments and indentation: V8 keeps the whole source text for as long as the server
      // runs (4.1 -> 2.9 MB; an idle server's RSS 111-112 -> 108 MiB). Names are kept, so stack
      // traces still name their functions; `NODE_OPTIONS=--enable-source-maps npm start` gives
      // them in src/ terms.
      minifyWhitespace: true,
      sourcemap: "linked",
      metafile: true,
      write: false,
      logLevel: "warning",
    });
    fs.mkdirSync(DIST, { recursive: true });
    for (const [from, to] of ASSETS) {
      fs.mkdirSync(path.dirname(path.join(DIST, to)), { recursive: true });
      writeAtomically(path.join(DIST, to), fs.readFileSync(path.join(ROOT, from)));
    }
    for (const output of result.outputFiles) writeAtomically(output.path, output.path.endsWith(".js") ? asciiOnly(output.text) : output.contents);
    // A chunk's name holds its hash: the last build's are gone once this one's are written.
    const written = new Set(result.outputFiles.map((output) => path.basename(output.path)));
    for (const name of fs.readdirSync(DIST)) if (/\.js(\.map)?$/.test(name) && !written.has(name)) fs.rmSync(path.join(DIST, name));
    const inputs = [...new Set([...Object.keys(result.metafile.inputs), ...ASSETS.map(([from]) => from), ...web, "scripts/build.mjs", "package.json"])].sort();
    writeAtomically(BUILD_INFO, JSON.stringify({ fingerprint: fingerprint(inputs), inputs }));
    return inputs.length;
  } finally {
    await esbuild.stop();
  }
}

/** Whether dist/ was built from exactly the files that are there now. */
export function isBuilt() {
  try {
    const info = JSON.parse(fs.readFileSync(BUILD_INFO, "utf8"));
    return info.fingerprint === fingerprint(info.inputs) && fs.existsSync(path.join(DIST, "cli.js"));
  } catch {
    return false; // never built
  }
}

if (import.meta.filename === path.resolve(process.argv[1] ?? "")) {
  const started = performance.now();
  const inputs = await build();
  process.stderr.write(`built dist/cli.js and dist/web/ from ${inputs} files in ${Math.round(performance.now() - started)} ms\n`);
}
