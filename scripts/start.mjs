#!/usr/bin/env node
// `npm start`: runs the server from dist/cli.js, the precompiled bundle of src/ (scripts/build.mjs),
// rebuilding it first if src/ or the installed packages changed since it was built. The build runs
// in its own process, so the server does not keep esbuild's memory. Arguments are the command
// line's (`npm start` passes `serve`).
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { isBuilt } from "./build.mjs";

if (!isBuilt()) execFileSync(process.execPath, [fileURLToPath(new URL("build.mjs", import.meta.url))], { stdio: ["ignore", 2, 2] });
await import("../dist/cli.js");
