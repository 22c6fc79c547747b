// Lint: typescript-eslint's recommended rules, plus the type-aware ones that catch
// promises nobody awaits and code nobody uses. Formatting is Prettier's.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "dist-plugin/**",
      "dist-sdks/**",
      "node_modules/**",
      ".lab/**",
      "test/programs/**",
      "bench/programs/**",
      "examples/**",
      "eslint.config.mjs",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/require-await": "off",
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_", caughtErrors: "none" },
      ],
      "@typescript-eslint/no-unnecessary-type-assertion": "error",
      "no-constant-condition": ["error", { checkLoops: false }],
      // CommonJS: require() loads optional and serialized-closure modules where they are used
      "@typescript-eslint/no-require-imports": "off",
    },
  },
);
