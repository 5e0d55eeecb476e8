#!/usr/bin/env node
// `npx parley <command>`: runs the TypeScript command line (src/cli.ts) through tsx.
import { register } from "tsx/esm/api";

register();
await import(new URL("../src/cli.ts", import.meta.url).href);
