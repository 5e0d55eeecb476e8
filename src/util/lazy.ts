import { createRequire } from "node:module";

/**
 * A module (or anything costly) loaded on first use and then kept, e.g.
 * `const loadSharp = lazy(() => import("sharp"))`. Heavy packages that only some requests or jobs
 * need are loaded this way so that an idle server neither waits for nor holds them.
 */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}

/**
 * A CommonJS package required on first use, for code that cannot wait for an import(), e.g.
 * `const loadPg = lazyRequire<typeof import("pg")>("pg")`.
 */
export function lazyRequire<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= createRequire(import.meta.url)(name) as T);
}
