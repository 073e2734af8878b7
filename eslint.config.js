// Lint: typescript-eslint's recommended rules over the whole tree. Formatting is Biome's
// (biome.json; `npm run format` writes it, `npm run lint` checks both, then the dependency rules).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** What Node gives every module: the plain-JS files (bin, scripts, worker threads) use these. */
const node = Object.fromEntries(
  [
    'process',
    'console',
    'URL',
    'URLSearchParams',
    'Buffer',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'TextDecoder',
    'TextEncoder',
    'fetch',
  ].map((g) => [g, 'readonly']),
);

export default tseslint.config(
  { ignores: ['node_modules/', '.models/', '.duckdb/', '.onnxruntime/', '.tmp/', 'data/', 'dist/', 'coverage/', 'service/search/dot-wasm.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // a leading underscore says "left out on purpose" (a field dropped by destructuring, an unused parameter)
      '@typescript-eslint/no-unused-vars': [
        'error',
        { varsIgnorePattern: '^_', argsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], languageOptions: { globals: node } },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { ...node, module: 'writable', require: 'readonly' } } },
);
