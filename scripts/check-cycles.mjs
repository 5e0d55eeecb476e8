#!/usr/bin/env node
// No import cycles (issue 35): fails when a module under the given roots reaches itself again through
// its imports, listing each cycle. Usage: node scripts/check-cycles.mjs ROOT... (`npm run
// check:cycles` names the roots). Type-only imports are left out (dpdm's `transform`: the file is
// compiled first, as at run time, so `import type` and imports used only as types vanish); they cannot
// make a module run before its dependency, and the layering lint (eslint.config.js) allows them too.
// Dynamic `import()`s count: they run too.
import { parseCircular, parseDependencyTree, prettyCircular } from "dpdm";

const roots = process.argv.slice(2).map((root) => root.replace(/\/+$/, ""));
if (roots.length === 0) {
  console.error("usage: node scripts/check-cycles.mjs ROOT...");
  process.exit(2);
}
const tree = await parseDependencyTree(
  roots.map((root) => `${root}/**/*.{ts,tsx}`),
  { context: process.cwd(), transform: true, onProgress: () => {} },
);
// A relative import the parser could not resolve would hide its edges: fail rather than pass blind.
const unresolved = Object.values(tree)
  .flatMap((deps) => deps ?? [])
  .filter((dep) => dep.id === null && dep.request.startsWith("."))
  .map((dep) => `  ${dep.issuer}: ${dep.request}`);
if (unresolved.length > 0) {
  console.error(`Imports the cycle check could not resolve:\n${unresolved.join("\n")}`);
  process.exit(1);
}
const cycles = parseCircular(tree);
if (cycles.length > 0) {
  console.error(`Import cycles under ${roots.join(", ")} (break each by moving the shared piece to a lower module):`);
  console.error(prettyCircular(cycles));
  process.exit(1);
}
const modules = Object.keys(tree).filter((file) => roots.some((root) => file.startsWith(`${root}/`)));
console.log(`No import cycles under ${roots.join(", ")} (${modules.length} modules).`);
