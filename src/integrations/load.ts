import { lazy } from "../util/lazy.js";

/**
 * The integrations' modules (every service's handler and the pages' texts), loaded on the first
 * webhook or integrations page request: ~0.2 MB of the bundle's source that most servers run
 * rarely, in a chunk of its own (scripts/build.mjs splits at dynamic imports). What every
 * /register needs of them is src/integrations/catalog.json, written from them by
 * scripts/integrations-doc.mjs.
 */
export const loadIntegrations = lazy(async () => {
  const [registry, docs] = await Promise.all([import("./registry.js"), import("./docs.js")]);
  return { integrationByName: registry.integrationByName, docs };
});
