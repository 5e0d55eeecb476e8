// ESLint: typescript-eslint's recommended rules, and the layering of docs/architecture.md.
// Each folder of src/ may import only from the layers below it; SQL is built only in src/store/
// (and the database plumbing of src/db/). `npm run check` runs this.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** Bottom to top. A layer may import those listed before it (type-only imports are free). */
const LAYERS = [
  ["util"],
  ["models"],
  ["db"],
  ["store"],
  ["blobs"],
  ["lib"],
  ["email"],
  ["events"],
  ["actions"],
  ["jobs"],
  ["routes", "http"],
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
            message: "Imports go downward only (docs/architecture.md: util → models → db → store → blobs → lib → email → events → actions → jobs → routes/http).",
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
  { ignores: ["dist/**", "node_modules/**", "web/**", "**/*.js", "**/*.mjs", "coverage/**", "src/db/migrations/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
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
  ...LAYERS.map((names, index) => ({
    files: names.map((name) => `src/${name}/**/*.ts`),
    rules: layerRules(index),
  })),
  {
    files: ["src/**/*.ts"],
    ignores: ["src/store/**", "src/db/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        { selector: `CallExpression[callee.property.name=${SQL_BUILDERS}]`, message: "SQL is built only in src/store/." },
      ],
    },
  },
);
