import type { JobRunner } from "./runner.js";

/** Registers every kind of durable job this process can run. */
export function registerJobHandlers(_runner: JobRunner): void {}
