// ESLint: typescript-eslint's recommended rules (type-aware ones too in web/), and the layering of docs/architecture.md.
// Each folder of src/ may import only from the layers below it (src/contract/, the API contract
// the web app shares, from nothing at all); SQL is built only in src/store/
// (and the database plumbing of src/db/). `npm run check` runs this.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import jsxA11y from "eslint-plugin-jsx-a11y-x";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";

/** Bottom to top. A layer may import those listed before it (type-only imports are free). */
const LAYERS = [
  ["contract"],
  ["util"],
  ["models"],
  ["db"],
  ["store"],
  ["blobs"],
  ["lib"],
  ["integrations"],
  ["email"],
  ["events"],
  ["actions"],
  ["jobs"],
  ["routes", "http", "auth"],
];
const ALL = LAYERS.flat();
const TOP = ["cli", "dev"];

/** Import specifiers that reach folder `name` of src/ from a file `depth` folders below src/. */
const reach = (name) => [`../${name}/*`, `../../${name}/*`, `../../../${name}/*`, `../${name}`, `../../${name}`];

function layerRules(index) {
  const above = [...LAYERS.slice(index + 1).flat(), ...TOP].filter((name) => !LAYERS[index].includes(name));
  return {
    "@typescript-eslint/no-restricted-imports": [
      "error",
      {
        patterns: [
          {
            group: above.flatMap(reach),
            allowTypeImports: true,
            message: "Imports go downward only (docs/architecture.md: contract → util → models → db → store → blobs → lib → integrations → email → events → actions → jobs → routes/http).",
          },
          ...(["store", "db"].some((l) => LAYERS[index].includes(l))
            ? []
            : [{ group: ["kysely"], allowTypeImports: true, message: "SQL is built only in src/store/." }]),
        ],
      },
    ],
  };
}

const SQL_BUILDERS = "/^(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto|selectNoFrom)$/";

export default tseslint.config(
  // Landed migrations are immutable (src/db/migrations.sha256): lint fixes must not touch them.
  { ignores: ["dist/**", "node_modules/**", "**/*.js", "**/*.mjs", "!scripts/**/*.mjs", "coverage/**", "src/db/migrations/**"] },
  js.configs.recommended,
  // scripts/*.mjs: plain JavaScript run by Node, so ESLint's recommended rules with Node's globals.
  {
    files: ["scripts/**/*.mjs"],
    languageOptions: { globals: globals.node },
    rules: {
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "no-control-regex": "off",
    },
  },
  ...tseslint.configs.recommended.map((config) => ({ ...config, files: config.files ?? ["**/*.ts", "**/*.tsx", "**/*.mts", "**/*.cts"] })),
  {
    files: ["src/**/*.ts", "test/**/*.ts", "scripts/**/*.ts"],
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports", disallowTypeAnnotations: false }],
      "@typescript-eslint/no-unused-expressions": ["error", { allowShortCircuit: true, allowTernary: true }],
      "no-control-regex": "off",
    },
  },
  // Type-aware rules on the server, its tests and scripts (tsconfig.json, test/tsconfig.json): a forgotten `await` on a
  // transaction or a store call is the bug class this code is most exposed to. A promise left running
  // on purpose says so with `void` and handles its own rejection.
  {
    files: ["src/**/*.ts", "test/**/*.ts", "scripts/**/*.ts"],
    languageOptions: { parserOptions: { project: ["tsconfig.json", "test/tsconfig.json"], tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
    },
  },
  // The web app: the same rules, plus type-aware ones (its tsconfig), the rules of hooks (Preact's
  // hooks follow React's; the React Compiler's rules do not fit signals, which are meant to be
  // assigned) and jsx-a11y's accessibility rules.
  {
    files: ["web/src/**/*.{ts,tsx}"],
    extends: [...tseslint.configs.recommendedTypeChecked, jsxA11y.configs.recommended],
    plugins: { "react-hooks": reactHooks },
    languageOptions: { parserOptions: { project: "web/tsconfig.json", tsconfigRootDir: import.meta.dirname } },
    rules: {
      // API answers are typed by the contract the server shares (src/contract/): no `any`, and
      // typescript-eslint's no-unsafe-* rules (recommendedTypeChecked) stay on.
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports", disallowTypeAnnotations: false }],
      "@typescript-eslint/no-unused-expressions": ["error", { allowShortCircuit: true, allowTernary: true }],
      "@typescript-eslint/no-restricted-imports": [
        "error",
        { patterns: [{ regex: "^(\\.\\./)+src/(?!contract/)", message: "The web app shares only the API contract (src/contract/) with the server." }] },
      ],
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
    },
  },
  ...LAYERS.map((names, index) => ({
    files: names.map((name) => `src/${name}/**/*.ts`),
    rules: layerRules(index),
  })),
  // The API contract (src/contract/) is compiled by the server and by the web app alike: plain
  // types and constants, importing nothing but its own modules (no Node.js, no package, no layer).
  {
    files: ["src/contract/**/*.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        { patterns: [{ regex: "^(?!\\./[^/]+\\.js$)", message: "src/contract/ is dependency-free: it imports only its own modules (./name.js)." }] },
      ],
    },
  },
  {
    files: ["src/**/*.ts"],
    ignores: ["src/store/**", "src/db/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        { selector: `CallExpression[callee.property.name=${SQL_BUILDERS}]`, message: "SQL is built only in src/store/." },
        {
          selector: "TSNonNullExpression > MemberExpression.expression[property.name='recipient_id']",
          message: "Narrow recipient_id where the row is read (a type with recipient_id: number), not with `!`.",
        },
        {
          // zod's `z` (and its default export) is a re-exported namespace that esbuild cannot
          // tree-shake: importing it puts all of zod's ~45 locales into dist/cli.js.
          selector: "ImportDeclaration[source.value='zod'] > :matches(ImportSpecifier[imported.name='z'], ImportDefaultSpecifier)",
          message: 'Write `import * as z from "zod"`: `import { z }` bundles every zod locale into dist/cli.js.',
        },
      ],
    },
  },
);
