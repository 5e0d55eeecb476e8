/**
 * A module (or anything costly) loaded on first use and then kept, e.g.
 * `const loadSharp = lazy(() => import("sharp"))`. Heavy packages that only some requests or jobs
 * need are loaded this way so that an idle server neither waits for nor holds them.
 */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}
